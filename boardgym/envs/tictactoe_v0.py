"""Tic-Tac-Toe as a PettingZoo AEC environment.

::

    from boardgym.envs import tictactoe_v0
    env = tictactoe_v0.env(render_mode="ansi")

Board and actions (action = cell; typed as column letter + row number, e.g. ``b2``)::

       a   b   c
    1  0 | 1 | 2
      ---+---+---
    2  3 | 4 | 5
      ---+---+---
    3  6 | 7 | 8

==================  =============================================================
Agents (seats)      ``player_0`` (X, moves first), ``player_1`` (O)
Action space        ``Discrete(9)``
Observation         ``Box(0, 1, (2, 3, 3), float32)``: plane 0 the observing
                    player's marks, plane 1 the opponent's
Action mask         ``Box(0, 1, (9,), int8)``, ones on empty cells for the agent
                    on move, all zeros otherwise
Rewards             +1 win, -1 loss, 0 draw, at the end; an illegal move ends
                    the game with -1 for the player who made it
Render modes        ``ansi``, ``human``, ``rgb_array``
==================  =============================================================

Three in a row, column or diagonal wins; a full board without a line is a draw.

Version history: v0, first release.
"""

from boardgym.envs.core import make_env_fns

env, raw_env = make_env_fns("tictactoe")
