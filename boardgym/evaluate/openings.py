"""Opening suites, so that two deterministic agents do not replay one game over and over.

Engine testing gives every pairing the same list of start positions, each played twice with
the seats swapped. Here opening ``k`` is ``plies`` uniformly random legal moves (a draw that
ends the game is drawn again), from a generator seeded by the tournament seed and ``k``; an
opening already in the suite is drawn again (up to ``REDRAWS`` times), so the suite holds
distinct openings wherever the game has enough of them. Rounds ``2k`` and ``2k + 1`` of every
pairing start from opening ``k``, the pairing's first agent in seat 0 and then in seat 1.
Opening ``k`` depends only on the seed and on the openings before it, so a tournament extended
with more games keeps its first openings.

``default_plies(game)``: the fewest plies with at least ``SUITE_BREADTH`` openings (sequences
that leave the game unfinished), so that a suite of a few hundred openings is nearly all
distinct. Tic-tac-toe and Connect Four get 4, Nim 1-3-5-7-9 and Quarto 3, Hex and Quixo 2.

``is_deterministic(agent_for_seed, game, seed)``: the agent, made with three seeds, plays
the same move at the start and in two positions a few random moves in. Tournaments turn the
suite on by default when any of their agents passes this probe (``openings="auto"``).

``distinct_games(keys)``: how many games differ, move for move and agent for agent.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

import numpy as np

from boardgym.agents.base import Agent
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

SUITE_BREADTH = 1000
"""How many distinct openings ``default_plies`` asks the game to have at the chosen depth."""
MAX_PLIES = 8
REDRAWS = 32
OPENING_MODES = ("auto", "on", "off")


def default_plies(game: Game) -> int:
    """The fewest plies (at most ``MAX_PLIES``) after which at least ``SUITE_BREADTH`` move
    sequences leave the game unfinished; where the game ends sooner, the deepest ply at which
    a uniformly random opening leaves the game unfinished at least half the time (so that the
    suite's random draws find openings; 0: no opening is possible)."""
    level = [(game.initial_state(), 1.0)]  # positions after ``plies - 1`` moves, with their chance
    deepest = 0
    for plies in range(1, MAX_PLIES + 1):
        following = []
        for state, chance in level:
            legal = game.legal_actions(state)
            for action in legal:
                child = game.apply(state, action)
                if not game.is_terminal(child):
                    following.append((child, chance / len(legal)))
                    if len(following) >= SUITE_BREADTH:
                        return plies
        if sum(chance for _, chance in following) < 0.5:
            return deepest
        deepest, level = plies, following
    return MAX_PLIES


def opening_suite(game: Game, plies: int, count: int, seed: int) -> list[tuple[Action, ...]]:
    """``count`` openings of ``plies`` moves each (see the module doc); empty ones when
    ``plies`` is 0."""
    suite: list[tuple[Action, ...]] = []
    seen: set[tuple[Action, ...]] = set()
    for k in range(count):
        rng = np.random.default_rng([seed, k, 0x09E7])
        opening: tuple[Action, ...] | None = None
        for _ in range(REDRAWS):
            drawn = _random_opening(game, plies, rng)
            if drawn is None:
                continue
            opening = drawn
            if drawn not in seen:
                break
        if opening is None:
            raise BoardgymError(
                f"every random opening of {plies} plies ended the game ({REDRAWS} tries): use fewer "
                f"--opening-plies (the default for this game is {default_plies(game)})"
            )
        seen.add(opening)
        suite.append(opening)
    return suite


def _random_opening(game: Game, plies: int, rng: np.random.Generator) -> tuple[Action, ...] | None:
    state = game.initial_state()
    moves: list[Action] = []
    for _ in range(plies):
        legal = game.legal_actions(state)
        action = legal[int(rng.integers(len(legal)))]
        state = game.apply(state, action)
        moves.append(action)
        if game.is_terminal(state):
            return None
    return tuple(moves)


def probe_positions(game: Game, seed: int) -> list[Any]:
    """The start and two positions a few random moves in (the positions ``is_deterministic``
    asks about)."""
    rng = np.random.default_rng([seed, 0xD37])
    positions = [game.initial_state()]
    for plies in (1, 3):
        moves = _random_opening(game, plies, rng)
        if moves is None:
            continue
        state = game.initial_state()
        for action in moves:
            state = game.apply(state, action)
        positions.append(state)
    return positions


def is_deterministic(agent_for_seed: Callable[[int], Agent], game: Game, seed: int, tries: int = 3) -> bool:
    """Whether the agent that ``agent_for_seed(s)`` gives (made, or reset, with seed ``s``) plays
    the same move, whatever ``s``, in every probe position."""
    for position in probe_positions(game, seed):
        if game.is_terminal(position) or len(game.legal_actions(position)) < 2:
            continue
        chosen = set()
        for attempt in range(tries):
            agent = agent_for_seed(int(np.random.SeedSequence([seed, attempt, 0xD37]).generate_state(1)[0]))
            chosen.add(agent.act(game, position))
            if len(chosen) > 1:
                return False
    return True


def distinct_games(keys: Iterable[Hashable]) -> int:
    """How many different keys (a game's agents by seat and its moves) there are."""
    return len(set(keys))
