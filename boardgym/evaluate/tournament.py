"""Tournaments: a round robin (or a gauntlet: the first agent against each of the others) of
``games_per_pair`` games per pairing, seats alternated, played in worker processes.

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

Files (when ``out_dir`` is given): ``tournament.json`` (the settings) and ``results.jsonl``,
one line per finished game appended as it comes, so an interrupted run keeps its games and
``resume=True`` plays only the missing ones. Asking for more games per pairing on resume
extends a finished tournament: the first rounds keep their indices and seeds. With
``save_games=N`` the games of index below N also keep each move's time, and each is written
as a game record to ``games/game-<index>.json`` (``boardgym replay`` reads both).

Puzzles (one player) are played as solo series: every agent plays ``games_per_pair`` games.

Backends (``BACKENDS``) play the fixtures still owed: ``local``, worker processes on this
machine; ``ray``, Ray tasks on a Ray started here or on a cluster (``boardgym.cluster``). Either
yields finished games in any order, each once; the file and the result are the same.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import time
import uuid
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.agents.registry import make_agent, parse_spec
from boardgym.evaluate.match import DRAW, MatchRecord, play_match
from boardgym.evaluate.openings import OPENING_MODES, default_plies, distinct_games, is_deterministic, opening_suite
from boardgym.evaluate.ratings import GameResult
from boardgym.evaluate.records import record_of_match
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.runs import RUNS_ROOT, RunLock, atomic_write_text, check_root, check_run_name
from boardgym.types import Action, BoardgymError

SETTINGS_FILE = "tournament.json"
RESULTS_FILE = "results.jsonl"

BACKENDS: dict[str, str] = {
    "local": "worker processes on this machine (--workers)",
    "ray": "Ray tasks on a Ray started here or on the cluster at --address (pip install 'boardgym[ray]')",
}


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
            "game_params": _jsonable(self.game_params),
            "agents": list(self.specs),
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "gauntlet": self.gauntlet,
            "num_players": self.num_players,
            "opening_plies": self.opening_plies,
        }


def run_tournament(
    game_name: str,
    specs: Sequence[str | Agent],
    games_per_pair: int,
    workers: int = 1,
    seed: int = 0,
    out_dir: Path | str | None = None,
    game_params: dict[str, Any] | None = None,
    *,
    gauntlet: bool = False,
    resume: bool = False,
    progress: bool = True,
    record_moves: bool = True,
    start_method: str | None = None,
    backend: str = "local",
    address: str | None = None,
    save_games: int = 0,
    openings: str = "auto",
    opening_plies: int | None = None,
) -> Tournament:
    """Play the tournament and return it with every game (sorted by index). See the module doc
    for the schedule and the files; ``out_dir=None`` writes nothing.

    ``specs`` are agent spec strings, built once in each worker, or agent objects (those need
    ``workers=1``, which plays in this process, or the ``fork`` start method, the default on
    Linux; with ``spawn`` they must pickle). ``record_moves=False`` keeps the move lists out of
    the records and the results file.

    ``backend`` (``BACKENDS``): ``local`` plays in ``workers`` processes here; ``ray`` plays Ray
    tasks on the cluster at ``address`` (``boardgym.cluster``), or on a Ray started here with
    ``workers`` CPUs when there is no address.

    ``openings`` (``auto``, ``on``, ``off``) and ``opening_plies`` (default: the game's
    ``openings.default_plies``): the opening suite, see the module doc. On ``resume`` the
    suite of the run being resumed is kept."""
    if backend not in BACKENDS:
        raise BoardgymError(f"unknown backend {backend!r}; known backends: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise BoardgymError(f"--address {address!r} is for --backend ray; drop it or add --backend ray")
    game_params = dict(game_params or {})
    game = make_game(game_name, **game_params)
    if game.num_players not in (1, 2):
        raise BoardgymError(f"tournaments handle one- and two-player games; {game_name} has {game.num_players} players")
    if len(specs) < game.num_players:
        needed = "one agent" if game.num_players == 1 else "at least two agents"
        raise BoardgymError(f"a tournament on {game_name} needs {needed}, got {list(specs)}; list them after --agents")
    if games_per_pair < 1:
        raise BoardgymError(f"games per pairing {games_per_pair} must be at least 1, e.g. --games 100")
    if workers < 1:
        raise BoardgymError(f"workers={workers} must be at least 1")
    if save_games < 0:
        raise BoardgymError(f"save_games={save_games} must be 0 or more (the first N games are saved)")
    if openings not in OPENING_MODES:
        raise BoardgymError(f"openings={openings!r} is not one of {', '.join(OPENING_MODES)}; e.g. --openings auto")
    if opening_plies is not None and opening_plies < 0:
        raise BoardgymError(f"opening plies {opening_plies} must be 0 or more, e.g. --opening-plies 4")
    labels = tuple(s if isinstance(s, str) else str(getattr(s, "spec", type(s).__name__)) for s in specs)
    for spec in specs:  # fail here, with the bad spec named, rather than in a worker
        if isinstance(spec, str):
            if parse_spec(spec)[0] == "human":
                raise BoardgymError("the human agent cannot sit in a tournament; play it with `boardgym play`")
            make_agent(spec, game, seed=seed)
    plies = _opening_plies(game, specs, seed, openings, opening_plies, out_dir if resume else None)
    tournament = Tournament(
        game_name, game_params, labels, games_per_pair, seed, gauntlet, game.num_players, opening_plies=plies
    )

    results_path = None
    lock = None
    if out_dir is not None:
        out_dir = Path(out_dir)
        # The one writer of the folder until the tournament ends: a second evaluate (or a
        # --resume) on the same run name is refused instead of writing results.jsonl twice.
        lock = RunLock(out_dir).acquire()
        try:
            results_path = out_dir / RESULTS_FILE
            tournament.games = _previous_games(out_dir, tournament, resume)
            atomic_write_text(out_dir / SETTINGS_FILE, json.dumps(tournament.settings(), indent=2) + "\n")
        except BaseException:
            lock.release()
            raise
    try:
        return _play_tournament(
            tournament,
            backend,
            game,
            game_params,
            specs,
            seed,
            workers,
            record_moves,
            start_method,
            save_games,
            address,
            results_path,
            out_dir,
            progress,
        )
    finally:
        if lock is not None:
            lock.release()


def _play_tournament(
    tournament: Tournament,
    backend: str,
    game: Game,
    game_params: dict[str, Any],
    specs: Sequence[str | Agent],
    seed: int,
    workers: int,
    record_moves: bool,
    start_method: str | None,
    save_games: int,
    address: str | None,
    results_path: Path | None,
    out_dir: Path | None,
    progress: bool,
) -> Tournament:
    game_name = tournament.game
    done = {played.index for played in tournament.games}
    todo = [fixture for fixture in tournament.schedule(game) if fixture.index not in done]
    bar = _progress_bar(len(done) + len(todo), len(done), game_name, progress)
    results = open(results_path, "a") if results_path is not None else None
    plays = _play_fixtures(
        backend, game, game_params, specs, seed, todo, workers, record_moves, start_method, save_games, address
    )
    try:
        for played in plays:
            if played.index in done:  # a chunk played twice (a retried task): keep the first copy
                continue
            done.add(played.index)
            tournament.games.append(played)
            if results is not None:
                results.write(played.to_json() + "\n")
                results.flush()
                if played.index < save_games and record_moves and out_dir is not None:
                    _save_game(Path(out_dir), game, played)
            bar.update(1)
    finally:
        plays.close()  # stops the workers now, also on Ctrl-C or an error
        bar.close()
        if results is not None:
            results.close()
    tournament.games.sort(key=lambda played: played.index)
    return tournament


def load_tournament(out_dir: Path | str) -> Tournament:
    """The settings and readable games of a tournament folder (an unfinished one too)."""
    out_dir = Path(out_dir)
    settings_path = out_dir / SETTINGS_FILE
    if not settings_path.is_file():
        raise BoardgymError(f"{str(out_dir)!r} holds no {SETTINGS_FILE}; pass the folder of a `boardgym evaluate` run")
    settings = json.loads(settings_path.read_text())
    tournament = Tournament(
        settings["game"],
        {key: tuple(v) if isinstance(v, list) else v for key, v in settings["game_params"].items()},
        tuple(settings["agents"]),
        int(settings["games_per_pair"]),
        int(settings["seed"]),
        bool(settings["gauntlet"]),
        int(settings["num_players"]),
        opening_plies=int(settings.get("opening_plies", 0)),
    )
    tournament.games, _ = _read_results(out_dir / RESULTS_FILE)
    in_schedule = {fixture.index for fixture in tournament.schedule()}
    tournament.games = sorted((g for g in tournament.games if g.index in in_schedule), key=lambda g: g.index)
    return tournament


def evaluate_folder(
    game_name: str, run_name: str | None = None, seed: int = 0, resume: bool = False, root: Path | str = RUNS_ROOT
) -> Path:
    """``runs/<game>/evaluate/<run-name>/`` (not created yet). Without a run name: a new
    ``s<seed>-<date>-<time>``, or with ``resume`` the newest folder that holds a tournament."""
    base = check_root(root) / game_name / "evaluate"
    if run_name:
        folder = base / check_run_name(run_name)
        if resume and not (folder / SETTINGS_FILE).is_file():
            raise BoardgymError(
                f"--resume: there is no tournament in {str(folder)!r} to continue; check --run-name "
                "(or leave it out to resume the newest), or start a new run without --resume"
            )
        return folder
    if resume:
        runs = sorted(base.glob(f"*/{SETTINGS_FILE}"), key=lambda path: path.stat().st_mtime)
        if not runs:
            raise BoardgymError(f"no tournament under {str(base)!r} to resume; start one without --resume")
        return runs[-1].parent
    return base / f"s{seed}-{time.strftime('%Y%m%d-%H%M%S')}"


def agent_labels(specs: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(labels)


def _opening_plies(
    game: Game,
    specs: Sequence[str | Agent],
    seed: int,
    openings: str,
    plies: int | None,
    resumed: Path | str | None,
) -> int:
    """The opening suite's plies (0: none) for these settings; see ``run_tournament``."""
    if game.num_players != 2 or openings == "off":
        return 0
    if resumed is not None and openings == "auto" and plies is None:
        settings_path = Path(resumed) / SETTINGS_FILE
        if settings_path.is_file():  # keep the suite of the games already played
            return int(json.loads(settings_path.read_text()).get("opening_plies", 0))
    if plies is not None:  # asked for by name: on under auto too
        return plies
    if openings == "auto" and not any(is_deterministic(_agent_for_seed(spec, game), game, seed) for spec in specs):
        return 0
    return default_plies(game)


def _agent_for_seed(spec: str | Agent, game: Game) -> Callable[[int], Agent]:
    """A spec made afresh with each seed; an agent object reset with it."""
    if isinstance(spec, str):
        return lambda seed: make_agent(spec, game, seed=seed)

    def reset(seed: int) -> Agent:
        reset_ = getattr(spec, "reset", None)  # agent objects without one keep no state
        if reset_ is not None:
            reset_(seed=seed)
        return spec

    return reset


# -- resuming -------------------------------------------------------------------------------
def _previous_games(out_dir: Path, tournament: Tournament, resume: bool) -> list[PlayedGame]:
    results_path = out_dir / RESULTS_FILE
    settings_path = out_dir / SETTINGS_FILE
    if not results_path.exists() or results_path.stat().st_size == 0:
        return []
    if not resume:
        raise BoardgymError(
            f"{str(out_dir)!r} already holds tournament results; pass --resume (resume=True) to finish "
            "or extend it, or choose another run name"
        )
    if settings_path.is_file():
        before = json.loads(settings_path.read_text())
        now = tournament.settings()
        before.setdefault("opening_plies", 0)  # runs from before opening suites
        changed = [key for key in now if key != "games_per_pair" and before.get(key) != now[key]]
        if changed:
            detail = ", ".join(f"{key} was {before.get(key)!r}, now {now[key]!r}" for key in changed)
            raise BoardgymError(
                f"cannot resume {str(out_dir)!r} with other settings ({detail}); rerun with the same "
                "game, agents and seed, or choose another run name"
            )
    games, unreadable = _read_results(results_path)
    if unreadable:  # a run killed mid-line: keep the good lines, drop the torn one
        atomic_write_text(results_path, "".join(played.to_json() + "\n" for played in games))
    in_schedule = {fixture.index for fixture in tournament.schedule()}
    return [played for played in games if played.index in in_schedule]


def _read_results(path: Path) -> tuple[list[PlayedGame], int]:
    """The readable games in ``path`` (the last copy of an index wins) and the number of
    lines that could not be read."""
    games: dict[int, PlayedGame] = {}
    unreadable = 0
    if not path.is_file():
        return [], 0
    with open(path) as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                played = PlayedGame.from_json(line)
            except (ValueError, KeyError, TypeError):
                unreadable += 1
                continue
            games[played.index] = played
    return sorted(games.values(), key=lambda played: played.index), unreadable


# -- playing --------------------------------------------------------------------------------
def _play_fixtures(
    backend: str,
    game: Game,
    game_params: dict[str, Any],
    specs: Sequence[str | Agent],
    seed: int,
    todo: list[Fixture],
    workers: int,
    record_moves: bool,
    start_method: str | None,
    save_games: int,
    address: str | None,
) -> Generator[PlayedGame, None, None]:
    """The games of ``todo`` from the backend asked for, in any order."""
    if backend == "ray":
        return _play_on_ray(game, game_params, specs, seed, todo, workers, record_moves, save_games, address)
    return _play_all(game, game_params, specs, seed, todo, workers, record_moves, start_method, save_games)


class _Table:
    """A game and the agents (built once) that play the fixtures handed to one process."""

    def __init__(
        self, game_name: str, game_params: dict[str, Any], specs: Sequence[str | Agent], seed: int, save_games: int = 0
    ) -> None:
        self.game = make_game(game_name, **game_params)
        self.specs = list(specs)
        self.seed = seed
        self.save_games = save_games
        self.agents: dict[int, Agent] = {}

    def play(self, fixture: Fixture, record_moves: bool) -> PlayedGame:
        players = [self._agent(i) for i in fixture.seats]
        timed = record_moves and fixture.index < self.save_games
        record = play_match(
            self.game,
            players,
            self.seed,
            index=fixture.index,
            record_moves=record_moves,
            record_times=timed,
            opening=fixture.opening,
        )
        return PlayedGame(fixture.index, fixture.seats, record)

    def _agent(self, i: int) -> Agent:
        if i not in self.agents:
            self.agents[i] = make_agent(self.specs[i], self.game, seed=self.seed)
        return self.agents[i]


_WORKER_TABLE: _Table | None = None


def _init_worker(
    game_name: str, game_params: dict[str, Any], specs: Sequence[str | Agent], seed: int, save_games: int
) -> None:
    global _WORKER_TABLE
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    _WORKER_TABLE = _Table(game_name, game_params, specs, seed, save_games)


def _play_chunk(fixtures: list[Fixture], record_moves: bool) -> list[PlayedGame]:
    assert _WORKER_TABLE is not None
    return [_WORKER_TABLE.play(fixture, record_moves) for fixture in fixtures]


def _play_all(
    game: Game,
    game_params: dict[str, Any],
    specs: Sequence[str | Agent],
    seed: int,
    todo: list[Fixture],
    workers: int,
    record_moves: bool,
    start_method: str | None,
    save_games: int,
) -> Generator[PlayedGame, None, None]:
    if not todo:
        return
    if workers == 1 or len(todo) == 1:
        table = _Table(game.name, game_params, specs, seed, save_games)
        for fixture in todo:
            yield table.play(fixture, record_moves)
        return
    if start_method is None:
        start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    workers = min(workers, len(todo))
    size = max(1, min(16, len(todo) // (workers * 16)))  # small chunks: steady progress, little lost on Ctrl-C
    # An executor rather than multiprocessing.Pool: a worker that dies (killed, out of memory)
    # breaks the run with an error instead of leaving the pool waiting forever.
    executor = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context(start_method),
        initializer=_init_worker,
        initargs=(game.name, game_params, list(specs), seed, save_games),
    )
    finished = False
    try:
        futures = [executor.submit(_play_chunk, todo[i : i + size], record_moves) for i in range(0, len(todo), size)]
        for future in as_completed(futures):
            yield from future.result()
        finished = True
    finally:
        if not finished:  # interrupted or failed: stop the games still being played
            for process in list(getattr(executor, "_processes", {}).values()):
                process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)


def _play_on_ray(
    game: Game,
    game_params: dict[str, Any],
    specs: Sequence[str | Agent],
    seed: int,
    todo: list[Fixture],
    workers: int,
    record_moves: bool,
    save_games: int,
    address: str | None,
) -> Generator[PlayedGame, None, None]:
    """``todo`` as Ray tasks (``boardgym.cluster.imap_chunks``: a task whose worker dies is
    played again, its chunk's games all together or not at all), each task playing its chunk
    with the same ``_Table`` as the local workers, built once per Ray worker process. Agent
    objects travel pickled: their classes must be importable on every node. Relative paths in
    specs (``checkpoint=runs/...``) are read from this process's folder, on every machine
    where that folder exists (a shared file system)."""
    from boardgym.cluster import imap_chunks

    table = (uuid.uuid4().hex, game.name, game_params, list(specs), seed, save_games, os.getcwd())
    yield from imap_chunks(
        _play_table_chunk,
        table,
        todo,
        args=(record_moves,),
        address=address,
        num_cpus=workers,
        what="the tournament's agents",
    )


_RAY_TABLE: tuple[str, _Table] | None = None


def _play_table_chunk(
    table: tuple[str, str, dict[str, Any], list[str | Agent], int, int, str],
    fixtures: list[Fixture],
    record_moves: bool,
) -> list[PlayedGame]:
    """One Ray task: ``fixtures`` played at the table that ``table`` describes (its first item
    names the tournament), built on the first task of this tournament in the process."""
    global _RAY_TABLE
    key, game_name, game_params, specs, seed, save_games, folder = table
    if os.path.isdir(folder):  # agents load their files lazily, at their first game
        os.chdir(folder)
    if _RAY_TABLE is None or _RAY_TABLE[0] != key:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        _RAY_TABLE = (key, _Table(game_name, game_params, specs, seed, save_games))
        if "torch" in sys.modules:  # one thread per task, as in the local workers
            sys.modules["torch"].set_num_threads(1)
    return [_RAY_TABLE[1].play(fixture, record_moves) for fixture in fixtures]


def _save_game(out_dir: Path, game: Game, played: PlayedGame) -> None:
    record = played.record
    title = f"{out_dir.name}, game {played.index}"
    record_of_match(game, record.agents, record.moves, record.move_seconds, title).save(
        out_dir / "games" / f"game-{played.index}.json"
    )


def _progress_bar(total: int, initial: int, game_name: str, enabled: bool):  # -> tqdm
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=f"{game_name} games", unit="game", disable=not enabled, leave=False)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
