"""One game between agents (``play_match``) and a short series between two of them
(``play_games``), in process and without files: what training scripts call for periodic
evaluation, and what the tournament's workers run.

Seeds: game ``index`` of a series seeded ``seed`` resets each agent with
``game_seed(seed, index, seat)``, so a game's moves depend only on the series seed and its
index, never on which process played it or in which order.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardgym.agents.base import Agent
from boardgym.agents.registry import make_agent
from boardgym.evaluate.ratings import wilson_interval
from boardgym.game import Game
from boardgym.runs import jsonable
from boardgym.types import Action, BoardgymError, IllegalActionError

DRAW = -1
"""``MatchRecord.winner`` of a game that nobody won."""


@dataclass(frozen=True)
class MatchRecord:
    """The result of one game.

    ``agents[seat]`` is the spec of the agent in that seat (seat 0 is player 0). ``winner`` is the
    winning seat or ``DRAW`` (a puzzle counts as won when its return is positive);
    ``first_player`` the seat that moved first; ``moves_per_seat[seat]`` and
    ``seconds_per_move[seat]`` how often and how long on average that seat's agent thought;
    ``moves`` the actions in order (empty when played with ``record_moves=False``);
    ``move_seconds`` each move's thinking time and ``move_infos`` what the agent reported
    about it (its ``last_info``: value, visits, depth...; both only when played with
    ``record_times=True``; 0 and ``{}`` for the opening's moves); ``opening`` how many of the
    first moves came from an opening suite rather than from the agents.
    """

    agents: tuple[str, ...]
    returns: tuple[float, ...]
    winner: int
    num_moves: int
    first_player: int
    moves_per_seat: tuple[int, ...]
    seconds_per_move: tuple[float, ...]
    moves: tuple[Action, ...]
    truncated: bool = False
    move_seconds: tuple[float, ...] = ()
    opening: int = 0
    move_infos: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "agents": list(self.agents),
            "returns": list(self.returns),
            "winner": self.winner,
            "num_moves": self.num_moves,
            "first_player": self.first_player,
            "moves_per_seat": list(self.moves_per_seat),
            "seconds_per_move": list(self.seconds_per_move),
            "moves": list(self.moves),
            "truncated": self.truncated,
            **({"move_seconds": list(self.move_seconds)} if self.move_seconds else {}),
            **({"opening": self.opening} if self.opening else {}),
            **({"move_infos": list(self.move_infos)} if any(self.move_infos) else {}),
        }

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> MatchRecord:
        return cls(
            agents=tuple(values["agents"]),
            returns=tuple(float(r) for r in values["returns"]),
            winner=int(values["winner"]),
            num_moves=int(values["num_moves"]),
            first_player=int(values["first_player"]),
            moves_per_seat=tuple(int(n) for n in values["moves_per_seat"]),
            seconds_per_move=tuple(float(t) for t in values["seconds_per_move"]),
            moves=tuple(int(a) for a in values.get("moves", ())),
            truncated=bool(values.get("truncated", False)),
            move_seconds=tuple(float(t) for t in values.get("move_seconds", ())),
            opening=int(values.get("opening", 0)),
            move_infos=tuple(info if isinstance(info, dict) else {} for info in values.get("move_infos", ())),
        )


@dataclass(frozen=True)
class MatchSummary:
    """Wins, draws and losses of agent A over a series against agent B (seats alternated)."""

    wins: int
    draws: int
    losses: int
    mean_length: float
    seconds_per_move: tuple[float, float]
    """Mean thinking time per move of A and of B."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game of A: a win 1, a draw 1/2."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def win_rate_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Wilson score interval of A's win rate."""
        return wilson_interval(self.wins, self.games, confidence)

    def __str__(self) -> str:
        low, high = self.win_rate_interval()
        return (
            f"{self.wins} W / {self.draws} D / {self.losses} L over {self.games} games "
            f"(win rate {self.win_rate:.1%}, 95% CI {low:.1%}-{high:.1%})"
        )


def game_seed(seed: int | None, index: int, seat: int) -> int | None:
    """The seed of the agent in ``seat`` for game ``index`` of a series seeded ``seed``."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, index, seat]).generate_state(1)[0])


def play_match(
    game: Game,
    agents: Sequence[str | Agent],
    seed: int | None = None,
    *,
    index: int = 0,
    record_moves: bool = True,
    record_times: bool = False,
    opening: Sequence[Action] = (),
) -> MatchRecord:
    """Play one game; ``agents[seat]`` plays seat ``seat``. Spec strings are built with
    ``make_agent``. Each agent is reset with ``game_seed(seed, index, seat)`` first and told
    the outcome through ``observe_outcome`` at the end, if it has that method. The moves of
    ``opening`` (from an opening suite, ``boardgym.evaluate.openings``) are played first, for
    no agent. ``record_times`` keeps each move's time and the agent's ``last_info`` after it.
    """
    if len(agents) != game.num_players:
        raise BoardgymError(f"{game.name} needs {game.num_players} agent(s), got {len(agents)}: {list(agents)}")
    players = [make_agent(spec, game, seed=game_seed(seed, index, seat)) for seat, spec in enumerate(agents)]
    for seat, agent in enumerate(players):
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(seed=game_seed(seed, index, seat))
    thinking = [0.0] * len(players)
    counts = [0] * len(players)
    moves: list[Action] = []
    times: list[float] = []
    infos: list[dict[str, Any]] = []
    state = game.initial_state()
    first_player = game.current_player(state)
    for action in opening:
        state = game.apply(state, action)
        moves.append(int(action))
        times.append(0.0)
        infos.append({})
    if game.is_terminal(state) and opening:
        raise BoardgymError(f"the opening {list(opening)} ends the game; an opening must leave moves to play")
    clock = time.perf_counter
    while not game.is_terminal(state):
        seat = game.current_player(state)
        started = clock()
        action = players[seat].act(game, state)
        took = clock() - started
        thinking[seat] += took
        times.append(took)
        if record_times:
            infos.append(_reported(players[seat]))
        counts[seat] += 1
        try:
            state = game.apply(state, action)
        except IllegalActionError as error:
            raise BoardgymError(
                f"agent {_spec(players[seat])!r} in seat {seat} played an illegal move: {error}"
            ) from None
        moves.append(int(action))
    for seat, agent in enumerate(players):
        observe = getattr(agent, "observe_outcome", None)
        if observe is not None:
            observe(game, state, seat)
    returns = tuple(float(r) for r in game.returns(state))
    return MatchRecord(
        agents=tuple(_spec(agent) for agent in players),
        returns=returns,
        winner=_winner(returns),
        num_moves=len(moves),
        first_player=first_player,
        moves_per_seat=tuple(counts),
        seconds_per_move=tuple(t / n if n else 0.0 for t, n in zip(thinking, counts, strict=True)),
        moves=tuple(moves) if record_moves else (),
        truncated=game.is_truncated(state),
        move_seconds=tuple(times) if record_times else (),
        opening=len(opening),
        move_infos=tuple(infos) if record_times else (),
    )


def play_games(game: Game, agent_a: str | Agent, agent_b: str | Agent, n: int, seed: int | None = None) -> MatchSummary:
    """``n`` games of A against B, A in seat 0 in even games and seat 1 in odd ones; returns
    A's wins, draws and losses. Spec strings are built once, then reset for every game."""
    if game.num_players != 2:
        raise BoardgymError(
            f"play_games pits two agents against each other; {game.name} has {game.num_players} player(s)"
        )
    if n < 1:
        raise BoardgymError(f"number of games n={n} must be at least 1")
    a = make_agent(agent_a, game, seed=game_seed(seed, 0, 0))
    b = make_agent(agent_b, game, seed=game_seed(seed, 0, 1))
    wins = draws = losses = total_moves = 0
    thinking = [0.0, 0.0]
    counts = [0, 0]
    for index in range(n):
        seat_a = index % 2
        seats = (a, b) if seat_a == 0 else (b, a)
        record = play_match(game, seats, seed, index=index, record_moves=False)
        if record.winner == DRAW:
            draws += 1
        elif record.winner == seat_a:
            wins += 1
        else:
            losses += 1
        total_moves += record.num_moves
        for who, seat in ((0, seat_a), (1, 1 - seat_a)):
            moved = record.moves_per_seat[seat]
            thinking[who] += record.seconds_per_move[seat] * moved
            counts[who] += moved
    return MatchSummary(
        wins=wins,
        draws=draws,
        losses=losses,
        mean_length=total_moves / n,
        seconds_per_move=(thinking[0] / max(counts[0], 1), thinking[1] / max(counts[1], 1)),
    )


def _reported(agent: Agent) -> dict[str, Any]:
    """The agent's ``last_info`` as plain JSON values; ``{}`` where it has none or it holds
    something JSON cannot carry."""
    try:
        return dict(jsonable(dict(getattr(agent, "last_info", None) or {})))
    except (TypeError, ValueError):
        return {}


def _winner(returns: tuple[float, ...]) -> int:
    best = max(returns)
    leaders = [seat for seat, value in enumerate(returns) if value == best]
    if len(returns) == 1:
        return 0 if best > 0 else DRAW
    return leaders[0] if len(leaders) == 1 else DRAW


def _spec(agent: Any) -> str:
    return str(getattr(agent, "spec", type(agent).__name__))
