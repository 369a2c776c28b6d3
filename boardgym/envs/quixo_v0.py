"""Quixo as a PettingZoo AEC environment (Gigamic rules).

::

    from boardgym.envs import quixo_v0
    env = quixo_v0.env(size=5, max_moves=100, render_mode="ansi")

Parameters: ``size`` (default 5; 3 and 4 for study) and ``max_moves`` (default 100 plies in
all; the game then ends as a draw, reported as a truncation; None for no limit).

Board: column letter and row number, ``a1`` top-left; only border cubes can be taken::

       a b c d e
    1  . . . . .
    2  . . . . .
    3  . . . . .
    4  . . . . .
    5  . . . . .

A move takes a border cube that is blank or the mover's own, turns it to the mover's symbol
and pushes it back in at one end of its row or column (not the square it came from), sliding
the cubes in between one step toward the hole. Corner cubes have 2 moves, edge cubes 3.

Actions: the border cells in reading order (a1, b1, ..., e1, a2, e2, ..., e5), and for each
the allowed ends in the order top (T), bottom (B), left (L), right (R). Typed ``cell:end``,
e.g. ``c1:B`` (take c1, push it in at the bottom of column c). 5x5: a1:B = 0, a1:R = 1,
b1:B = 2, b1:L = 3, b1:R = 4, ..., e5:L = 43.

==================  =============================================================
Agents (seats)      ``player_0`` (X, moves first), ``player_1`` (O)
Action space        ``Discrete(44)`` on 5x5 (32 on 4x4, 20 on 3x3)
Observation         ``Box(0, 1, (2, size, size), float32)``: plane 0 cubes showing
                    the observing player's symbol, plane 1 the opponent's
Action mask         ``Box(0, 1, (44,), int8)``, ones on moves whose cube is blank
                    or the mover's, for the agent on move; zeros otherwise
Rewards             +1 win, -1 loss at the end; 0 to both when ``max_moves`` is
                    reached (``truncations`` set); an illegal move ends the game
                    with -1 for the player who made it
Render modes        ``ansi``, ``human``, ``rgb_array``
==================  =============================================================

A full row, column or long diagonal of one's own symbol wins; a move that completes a line
of the opponent's symbol loses, even if it completes one of the mover's too.

Version history: v0, first release.
"""

from boardgym.envs.core import make_env_fns

env, raw_env = make_env_fns("quixo")
