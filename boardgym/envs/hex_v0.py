"""Hex as a PettingZoo AEC environment.

::

    from boardgym.envs import hex_v0
    env = hex_v0.env(size=11, swap=False, render_mode="ansi")

Parameters: ``size`` (default 11, from 3 to 19) and ``swap`` (default False: the pie rule).

Board (size 4 shown), standard notation: column letter, row number, ``a1`` the top-left
acute corner; the neighbours of ``(x, y)`` are ``(x+-1, y)``, ``(x, y+-1)``, ``(x+1, y-1)``
and ``(x-1, y+1)``::

         a b c d
      1  . . . .  1         X  Black, player_0, moves first: joins row 1 and row 4
       2  . . . .  2        O  White, player_1: joins column a and column d
        3  . . . .  3
         4  . . . .  4
             a b c d

Actions: ``y * size + x`` places a stone on column ``x``, row ``y`` (0-based), so ``a1`` = 0,
``b1`` = 1, ``a2`` = ``size``. With ``swap=True`` action ``size * size`` (``swap``) is legal
for White's first move only: Black's stone on ``(x, y)`` becomes a White stone on the mirrored
cell ``(y, x)`` and Black moves again, so each colour keeps its own edges.

==================  =============================================================
Agents (seats)      ``player_0`` (Black, X, moves first), ``player_1`` (White, O)
Action space        ``Discrete(size * size)``, or ``size * size + 1`` with swap
Observation         ``Box(0, 1, (3, size, size), float32)``: plane 0 the observing
                    player's stones, plane 1 the opponent's, plane 2 all ones for
                    Black (joins top-bottom), all zeros for White (left-right);
                    row 0 is row 1, column 0 is column a
Action mask         ``Box(0, 1, (num_actions,), int8)``, ones on empty cells (and
                    swap when allowed) for the agent on move, all zeros otherwise
Rewards             +1 win, -1 loss, at the end (Hex has no draws); an illegal
                    move ends the game with -1 for the player who made it
Render modes        ``ansi`` (the board above), ``human``, ``rgb_array``
==================  =============================================================

The first player to join their two edges with a chain of their stones wins.

Version history: v0, first release.
"""

from boardgym.envs.core import make_env_fns

env, raw_env = make_env_fns("hex")
