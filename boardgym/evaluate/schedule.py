"""What a tournament is: the settings asked for (``TournamentSettings``), the tournament they
make (``Tournament``: its pairings, its schedule of ``Fixture``s, the ``PlayedGame``s so far).
``boardgym.evaluate.tournament`` plays it and re-exports every name here; this module sits below
the results file (``results.py``) and the backends (``backends.py``), which both read it.

A round robin (or a gauntlet: the first agent against each of the others) of
``games_per_pair`` games per pairing, seats alternated. Puzzles (one player) are played as solo
series: every agent plays ``games_per_pair`` games.

The schedule is fixed by the agents, the number of games and the seed: game ``index`` is
round ``index // pairings`` of pairing ``index % pairings``, the first agent of the pairing
sits in seat 0 in even rounds and seat 1 in odd ones, and each agent is reset with a seed
derived from the tournament seed and ``index`` (``match.game_seed``). Which worker plays a
game, and when, therefore changes nothing in its moves, as long as agents keep no memory from
one game to the next beyond what ``reset`` clears.

Openings (``boardgym.evaluate.openings``): with ``opening_plies`` above 0, rounds ``2k`` and
``2k + 1`` of every pairing start after the moves of opening ``k`` of the tournament's suite,
so the two seatings of a pairing play the same start. ``openings="auto"`` (the default) turns
the suite on when one of the agents plays the same moves whatever its seed (two such agents
would otherwise replay one game); ``"on"`` and ``"off"`` decide it outright. Games that repeat
an earlier one move for move count once in the intervals (``analysis.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from boardgym.agents.base import Agent
from boardgym.evaluate.match import DRAW, MatchRecord
from boardgym.evaluate.openings import distinct_games, opening_suite
from boardgym.evaluate.ratings import GameResult
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.runs import jsonable
from boardgym.types import Action


@dataclass(frozen=True)
class TournamentSettings:
    """Everything ``run_tournament`` is asked, but the folder (``out_dir``, ``resume``): the
    one object ``run_tournament_with`` and the backends take. Built as is, it is not checked
    yet: ``run_tournament_with`` checks it before anything is played or written.

    ``specs`` are agent spec strings or agent objects (a list is kept as a tuple);
    ``game_params`` is copied. ``openings`` and ``opening_plies`` are as asked (``None``: the
    game's default); the plies the tournament plays with are ``Tournament.opening_plies``.
    ``batch_games``: how many games of a pairing an agent that acts in batches (``BatchAgent``,
    e.g. ``alphazero:search=batched``) plays together, one search for all of them (1: each game
    on its own); the games are the same either way."""

    game_name: str
    specs: tuple[str | Agent, ...]
    games_per_pair: int
    workers: int = 1
    seed: int = 0
    game_params: dict[str, Any] = field(default_factory=dict)
    gauntlet: bool = False
    progress: bool = True
    record_moves: bool = True
    start_method: str | None = None
    backend: str = "local"
    address: str | None = None
    save_games: int = 0
    openings: str = "auto"
    opening_plies: int | None = None
    batch_games: int = 64

    def __post_init__(self) -> None:
        object.__setattr__(self, "specs", tuple(self.specs))
        object.__setattr__(self, "game_params", dict(self.game_params or {}))

    @property
    def labels(self) -> tuple[str, ...]:
        """Each agent's spec: the string, or an agent object's ``spec`` (its class name without one)."""
        return tuple(s if isinstance(s, str) else str(getattr(s, "spec", type(s).__name__)) for s in self.specs)


@dataclass(frozen=True)
class Fixture:
    """Game ``index`` of the schedule: ``seats[s]`` is the agent (by position) in seat ``s``."""

    index: int
    seats: tuple[int, ...]
    opening: tuple[Action, ...] = ()


@dataclass(frozen=True)
class PlayedGame:
    index: int
    seats: tuple[int, ...]
    record: MatchRecord

    def to_json(self) -> str:
        return json.dumps({"index": self.index, "seats": list(self.seats), **self.record.to_dict()})

    @classmethod
    def from_json(cls, line: str) -> PlayedGame:
        values = json.loads(line)
        return cls(int(values["index"]), tuple(int(s) for s in values["seats"]), MatchRecord.from_dict(values))


@dataclass
class Tournament:
    """Settings and the games played so far (sorted by index)."""

    game: str
    game_params: dict[str, Any]
    specs: tuple[str, ...]
    games_per_pair: int
    seed: int
    gauntlet: bool = False
    num_players: int = 2
    opening_plies: int = 0
    """Moves of each game's opening from the suite; 0: every game starts at the start."""
    games: list[PlayedGame] = field(default_factory=list)

    @property
    def names(self) -> tuple[str, ...]:
        """The agents' labels: their specs, numbered where a spec appears twice (``random#2``)."""
        return agent_labels(self.specs)

    @property
    def pairings(self) -> list[tuple[int, ...]]:
        n = len(self.specs)
        if self.num_players == 1:
            return [(i,) for i in range(n)]
        if self.gauntlet:
            return [(0, j) for j in range(1, n)]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def schedule(self, game: Game | None = None) -> list[Fixture]:
        """Every game's fixture; with an opening suite, ``game`` (the rules, made from the
        settings when not given) draws the openings."""
        pairings = self.pairings
        suite: list[tuple[Action, ...]] = []
        if self.opening_plies > 0 and self.num_players == 2:
            game = game if game is not None else make_game(self.game, **self.game_params)
            suite = opening_suite(game, self.opening_plies, (self.games_per_pair + 1) // 2, self.seed)
        fixtures = []
        for round_ in range(self.games_per_pair):
            for number, pairing in enumerate(pairings):
                seats = pairing if round_ % 2 == 0 else pairing[::-1]
                opening = suite[round_ // 2] if suite else ()
                fixtures.append(Fixture(round_ * len(pairings) + number, seats, opening))
        return fixtures

    def game_key(self, played: PlayedGame) -> tuple[Any, ...]:
        """What makes a game the same game: the agents' specs by seat and the moves (a game
        played without its moves recorded is its own key)."""
        if not played.record.moves:
            return ("unrecorded", played.index)
        return (tuple(self.specs[i] for i in played.seats), played.record.moves)

    def distinct_games(self) -> int:
        """How many of the games played differ from each other, agent for agent and move for move."""
        return distinct_games(self.game_key(played) for played in self.games)

    def repeats_warning(self) -> str | None:
        """One sentence when games repeat each other, saying what to do; ``None`` otherwise."""
        distinct = self.distinct_games()
        if distinct == len(self.games):
            return None
        advice = (
            "raise --opening-plies for a wider opening suite"
            if self.opening_plies
            else "turn on the opening suite (--openings on)"
        )
        return (
            f"only {distinct} of the {len(self.games)} games differ from each other (the rest repeat one of them "
            f"move for move): the intervals count the {distinct} distinct games; {advice} for more"
        )

    def rating_games(self) -> list[GameResult]:
        """Two-player games as ``(first mover, second mover, first mover's points)``, by index."""
        names = self.names
        out = []
        for played in self.games:
            record = played.record
            first = record.first_player
            second = 1 - first
            if record.winner == DRAW:
                score = 0.5
            else:
                score = 1.0 if record.winner == first else 0.0
            out.append((names[played.seats[first]], names[played.seats[second]], score))
        return out

    def settings(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "game_params": jsonable(self.game_params),
            "agents": list(self.specs),
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "gauntlet": self.gauntlet,
            "num_players": self.num_players,
            "opening_plies": self.opening_plies,
        }


def agent_labels(specs: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(labels)
