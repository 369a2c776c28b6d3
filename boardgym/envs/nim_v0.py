"""Nim as a PettingZoo AEC environment.

::

    from boardgym.envs import nim_v0
    env = nim_v0.env(heaps=(1, 3, 5, 7, 9), misere=False, k=None, render_mode="ansi")

Parameters: ``heaps`` (default 1, 3, 5, 7, 9), ``misere`` (default False: taking the last
object wins; True: it loses), ``k`` (default None; otherwise take at most k per move).

Actions: with ``T = min(k, max(heaps))`` (``max(heaps)`` without k), action
``heap * T + (take - 1)`` takes ``take`` objects from heap ``heap`` (0-based). Default
heaps: ``T = 9``, 45 actions; action 20 = heap 2 (the one with 5), take 3. Typed as
``heap:take`` with heaps numbered from 1 (``3:3`` for that move).

::

    heap 1: 1  |
    heap 2: 3  |||
    heap 3: 5  |||||
    heap 4: 7  |||||||
    heap 5: 9  |||||||||

==================  =============================================================
Agents (seats)      ``player_0`` (moves first), ``player_1``
Action space        ``Discrete(len(heaps) * T)``
Observation         ``Box(0, 1, (1, len(heaps), max(heaps)), float32)``: row i
                    holds heaps[i] ones from the left (same for both players)
Action mask         ``Box(0, 1, (len(heaps) * T,), int8)`` for the agent on move,
                    all zeros otherwise
Rewards             +1 / -1 at the end (no draws); an illegal move ends the game
                    with -1 for the player who made it
Render modes        ``ansi``, ``human``, ``rgb_array``
==================  =============================================================

Version history: v0, first release.
"""

from boardgym.envs.core import make_env_fns

env, raw_env = make_env_fns("nim")
