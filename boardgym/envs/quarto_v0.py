"""Quarto as a PettingZoo AEC environment.

::

    from boardgym.envs import quarto_v0
    env = quarto_v0.env(render_mode="ansi")

Pieces 0..15 are written as their four binary digits (piece 11 = ``1011``); each digit is
one attribute (tall/short, dark/light, square/round, hollow/solid). Cells are ``a1``..``d4``,
``a1`` top-left, cell index ``4 * row + column``::

        a    b    c    d
    1  1011 .... .... ....      cell indices   0  1  2  3
    2  .... 0110 .... ....                     4  5  6  7
    3  .... .... .... ....                     8  9 10 11
    4  .... .... .... ....                    12 13 14 15
    available: p0=0000 p1=0001 ...

Each turn is two actions by the same player: place the piece the opponent chose, then choose
a piece for the opponent; the very first turn only chooses. The agent to move changes after
each choice, so the same agent acts twice in a row.

==================  =============================================================
Agents (seats)      ``player_0`` (chooses first), ``player_1`` (places first)
Action space        ``Discrete(32)``: 0..15 place the piece in hand on that cell
                    (``b3``); 16..31 choose piece ``action - 16`` for the opponent
                    (``p11`` or ``1011``)
Observation         ``Box(0, 1, (8, 4, 4), float32)``: planes 0-3 cells whose piece
                    has attribute bit k = 1; plane 4 occupied cells; plane 5 the
                    available pieces (piece p at row p // 4, column p % 4); plane 6
                    the piece in hand, same layout; plane 7 all ones while placing
Action mask         ``Box(0, 1, (32,), int8)``: empty cells while placing, available
                    pieces while choosing, for the agent on move; zeros otherwise
Rewards             +1 win, -1 loss, 0 draw at the end; an illegal move ends the
                    game with -1 for the player who made it
Render modes        ``ansi``, ``human``, ``rgb_array``
==================  =============================================================

Four pieces in a row, column or diagonal that share one attribute value (all 1 or all 0 in
the same digit) win for the player who placed the last of them; a full board is a draw.

Version history: v0, first release.
"""

from boardgym.envs.core import make_env_fns

env, raw_env = make_env_fns("quarto")
