"""One game between agents (``play_match``) and a short series between two of them
(``play_games``), in process and without files: what training scripts call for periodic
evaluation, and what the tournament's workers run.

Seeds: game ``index`` of a series seeded ``seed`` resets each agent with
``game_seed(seed, index, seat)``, so a game's moves depend only on the series seed and its
index, never on which process played it or in which order.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardgym.agents.base import Agent, BatchAgent
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
    match = Match(
        game, agents, seed, index=index, record_moves=record_moves, record_times=record_times, opening=opening
    )
    return match.play_out()


def play_lockstep(game: Game, matches: Sequence[Match]) -> Iterator[tuple[int, MatchRecord]]:
    """Play ``matches`` (each with agent objects of its own) together, one move of every
    unfinished game a step; yields ``(position in matches, record)`` as each game ends.

    The agents on move that act in batches (``BatchAgent`` with ``acts_in_batches``) and share
    a search (the same ``batch_key``: an agent and its ``fork``s) get the step's games where
    they are on move in one ``act_batch`` call; the others act game by game, as in
    ``play_match``. A batch's time is shared equally among its games' moves. Each game's moves
    are those ``play_match`` would play, as far as each agent's move depends only on its game
    and its own state (``BatchAgent``'s promise)."""
    live = []
    for k, match in enumerate(matches):
        if match.over:
            yield k, match.record()
        else:
            live.append(k)
    clock = time.perf_counter
    while live:
        groups: dict[Hashable, list[int]] = {}
        for k in live:
            match = matches[k]
            player = match.players[match.seat]
            if isinstance(player, BatchAgent) and player.acts_in_batches:
                groups.setdefault(player.batch_key, []).append(k)
                continue
            started = clock()
            action = player.act(game, match.state)
            match.play(action, clock() - started)
        for members in groups.values():
            players = [matches[k].players[matches[k].seat] for k in members]
            leader = players[0]
            assert isinstance(leader, BatchAgent)
            started = clock()
            actions = list(leader.act_batch(game, [matches[k].state for k in members], players))
            share = (clock() - started) / len(members)
            if len(actions) != len(members):
                raise BoardgymError(
                    f"agent {_spec(leader)!r} returned {len(actions)} moves for {len(members)} games from act_batch"
                )
            for k, action in zip(members, actions, strict=True):
                matches[k].play(action, share)
        still = []
        for k in live:
            if matches[k].over:
                yield k, matches[k].record()
            else:
                still.append(k)
        live = still


class Match:
    """One game under way: its agents (reset for it when it is built), its state and what has
    been recorded so far. ``play_match`` plays one to its end; ``play_lockstep`` many together.
    ``players`` are the agents by seat (spec strings built with ``make_agent``)."""

    def __init__(
        self,
        game: Game,
        agents: Sequence[str | Agent],
        seed: int | None = None,
        *,
        index: int = 0,
        record_moves: bool = True,
        record_times: bool = False,
        opening: Sequence[Action] = (),
    ) -> None:
        if len(agents) != game.num_players:
            raise BoardgymError(f"{game.name} needs {game.num_players} agent(s), got {len(agents)}: {list(agents)}")
        self.game = game
        self.players = [make_agent(spec, game, seed=game_seed(seed, index, seat)) for seat, spec in enumerate(agents)]
        for seat, agent in enumerate(self.players):
            reset = getattr(agent, "reset", None)
            if reset is not None:
                reset(seed=game_seed(seed, index, seat))
        self.record_moves = record_moves
        self.record_times = record_times
        self.thinking = [0.0] * len(self.players)
        self.counts = [0] * len(self.players)
        self.moves: list[Action] = []
        self.times: list[float] = []
        self.infos: list[dict[str, Any]] = []
        self.opening = len(opening)
        state = game.initial_state()
        self.first_player = game.current_player(state)
        for action in opening:
            state = game.apply(state, action)
            self.moves.append(int(action))
            self.times.append(0.0)
            self.infos.append({})
        if game.is_terminal(state) and opening:
            raise BoardgymError(f"the opening {list(opening)} ends the game; an opening must leave moves to play")
        self.state = state
        self.over = game.is_terminal(state)
        self.seat = -1 if self.over else game.current_player(state)

    def play(self, action: Action, took: float) -> None:
        """The move of the agent on move (``seat``), which thought ``took`` seconds."""
        game, seat = self.game, self.seat
        self.thinking[seat] += took
        self.times.append(took)
        if self.record_times:
            self.infos.append(_reported(self.players[seat]))
        self.counts[seat] += 1
        try:
            self.state = game.apply(self.state, action)
        except IllegalActionError as error:
            raise BoardgymError(
                f"agent {_spec(self.players[seat])!r} in seat {seat} played an illegal move: {error}"
            ) from None
        self.moves.append(int(action))
        self.over = game.is_terminal(self.state)
        self.seat = -1 if self.over else game.current_player(self.state)

    def play_out(self) -> MatchRecord:
        """The game played to its end, each agent asked with ``act``; its record."""
        clock = time.perf_counter
        while not self.over:
            player = self.players[self.seat]
            started = clock()
            action = player.act(self.game, self.state)
            self.play(action, clock() - started)
        return self.record()

    def record(self) -> MatchRecord:
        """The finished game's record; each agent is told the outcome (``observe_outcome``)."""
        game, state = self.game, self.state
        for seat, agent in enumerate(self.players):
            observe = getattr(agent, "observe_outcome", None)
            if observe is not None:
                observe(game, state, seat)
        returns = tuple(float(r) for r in game.returns(state))
        thinking, counts = self.thinking, self.counts
        return MatchRecord(
            agents=tuple(_spec(agent) for agent in self.players),
            returns=returns,
            winner=_winner(returns),
            num_moves=len(self.moves),
            first_player=self.first_player,
            moves_per_seat=tuple(counts),
            seconds_per_move=tuple(t / n if n else 0.0 for t, n in zip(thinking, counts, strict=True)),
            moves=tuple(self.moves) if self.record_moves else (),
            truncated=game.is_truncated(state),
            move_seconds=tuple(self.times) if self.record_times else (),
            opening=self.opening,
            move_infos=tuple(self.infos) if self.record_times else (),
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
