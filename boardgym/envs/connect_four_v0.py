"""Connect Four as a PettingZoo AEC environment.

::

    from boardgym.envs import connect_four_v0
    env = connect_four_v0.env(render_mode="ansi")

Board and actions (action = column 0..6, typed as a letter ``a``..``g``)::

    6  .  .  .  .  .  .  .
    5  .  .  .  .  .  .  .
    4  .  .  .  .  .  .  .
    3  .  .  .  .  .  .  .
    2  .  .  .  .  .  .  .
    1  .  .  .  .  .  .  .
       a  b  c  d  e  f  g
       0  1  2  3  4  5  6     <- action

==================  =============================================================
Agents (seats)      ``player_0`` (X, moves first), ``player_1`` (O)
Action space        ``Discrete(7)``: drop a disc in that column
Observation         ``Box(0, 1, (2, 6, 7), float32)``: plane 0 the observing
                    player's discs, plane 1 the opponent's; row 0 is the top row
Action mask         ``Box(0, 1, (7,), int8)``, ones on columns that are not full
                    for the agent on move, all zeros otherwise
Rewards             +1 win, -1 loss, 0 draw, at the end; an illegal move ends
                    the game with -1 for the player who made it
Render modes        ``ansi``, ``human``, ``rgb_array``
==================  =============================================================

Four in a row horizontally, vertically or diagonally wins; a full board is a draw.

Version history: v0, first release.
"""

from boardgym.envs.core import make_env_fns

env, raw_env = make_env_fns("connect_four")
