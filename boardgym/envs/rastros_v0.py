"""Rastros as a PettingZoo AEC environment (Bill Taylor's game).

::

    from boardgym.envs import rastros_v0
    env = rastros_v0.env(render_mode="ansi")

Board: cells ``(row, column)`` from 1 to 8, row 1 at the top; the white stone ``@`` starts on
(4,5), ``#`` are black cells, ``S`` and ``N`` mark the goals::

         1 2 3 4 5 6 7 8
      1  . . . . . . . N
      2  . . . . . . . .
      3  . . . . . . . .
      4  . . . . @ . . .
      5  . . . . . . . .
      6  . . . . . . . .
      7  . . . . . . . .
      8  S . . . . . . .

A move takes the white stone to a neighbouring cell (8 directions) that is on the board and
not black; the cell it left turns black. The stone on (8,1) wins for S, on (1,8) for N,
whoever moved it there; a player with no move loses. No draws.

==================  =============================================================
Agents (seats)      ``player_0`` (S, moves first), ``player_1`` (N)
Action space        ``Discrete(8)``: step direction 0..7 = N, NE, E, SE, S, SW, W,
                    NW (N is toward row 1); typed as the destination ``row,col``
Observation         ``Box(0, 1, (4, 8, 8), float32)``: plane 0 the white stone,
                    plane 1 black cells, plane 2 the observing player's goal,
                    plane 3 the opponent's goal
Action mask         ``Box(0, 1, (8,), int8)``, ones on directions to free cells
                    for the agent on move, all zeros otherwise
Rewards             +1 win, -1 loss at the end; an illegal move ends the game
                    with -1 for the player who made it
Render modes        ``ansi``, ``human``, ``rgb_array``
==================  =============================================================

Version history: v0, first release.
"""

from boardgym.envs.core import make_env_fns

env, raw_env = make_env_fns("rastros")
