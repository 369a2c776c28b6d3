"""Tournaments: a round robin (or a gauntlet: the first agent against each of the others) of
``games_per_pair`` games per pairing, seats alternated, played in worker processes.

``run_tournament(game_name, specs, games_per_pair, ...)`` takes the settings as arguments and
``run_tournament_with(settings, out_dir, resume=...)`` as one ``TournamentSettings``; either
checks them, opens the folder (when there is one), hands the fixtures still owed to the backend
asked for and appends each finished game to the results file as it comes. Where each part
lives, and its own documentation:

- ``schedule.py``: the model: ``TournamentSettings``, ``Tournament`` (pairings, the schedule of
  ``Fixture``s, the opening suite), ``PlayedGame``; the schedule and openings are explained there.
- ``results.py``: the folder's files (``tournament.json``, ``results.jsonl``,
  ``games/game-<index>.json``), ``load_tournament``, resuming and the torn-line repair.
- ``backends.py``: ``BACKENDS``, where games are played: ``local`` (worker processes on this
  machine) and ``ray`` (Ray tasks, ``boardgym.cluster``).

Every name of those modules that callers use is importable from here too, as before the split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.agents.registry import make_agent, parse_spec
from boardgym.config import progress_bar
from boardgym.evaluate.backends import BACKENDS, acts_in_batches, play_local, play_on_ray
from boardgym.evaluate.openings import OPENING_MODES, default_plies, is_deterministic
from boardgym.evaluate.results import (
    RESULTS_FILE,
    SETTINGS_FILE,
    ResultsLog,
    load_tournament,
    previous_games,
    saved_opening_plies,
    write_settings,
)
from boardgym.evaluate.schedule import Fixture, PlayedGame, Tournament, TournamentSettings, agent_labels
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.runs import RunFolder
from boardgym.types import BoardgymError

__all__ = [
    "BACKENDS",
    "RESULTS_FILE",
    "SETTINGS_FILE",
    "Fixture",
    "PlayedGame",
    "Tournament",
    "TournamentSettings",
    "agent_labels",
    "load_tournament",
    "run_tournament",
    "run_tournament_with",
]


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
    batch_games: int = 64,
) -> Tournament:
    """Play the tournament and return it with every game (sorted by index). See
    ``schedule.py`` for the schedule and openings and ``results.py`` for the files;
    ``out_dir=None`` writes nothing. The same as ``run_tournament_with`` on the
    ``TournamentSettings`` of these arguments (all but ``out_dir`` and ``resume``).

    ``specs`` are agent spec strings, built once in each worker, or agent objects (those need
    ``workers=1``, which plays in this process, or the ``fork`` start method, the default on
    Linux; with ``spawn`` they must pickle). ``record_moves=False`` keeps the move lists out of
    the records and the results file. ``progress``: a bar of the games on stderr, shown only
    where stderr is a terminal (never in a log file, a pipe or captured output); False: never.

    ``backend`` (``BACKENDS``): ``local`` plays in ``workers`` processes here; ``ray`` plays Ray
    tasks on the cluster at ``address`` (``boardgym.cluster``), or on a Ray started here with
    ``workers`` CPUs when there is no address.

    ``openings`` (``auto``, ``on``, ``off``) and ``opening_plies`` (default: the game's
    ``openings.default_plies``): the opening suite, see ``schedule.py``. On ``resume`` the
    suite of the run being resumed is kept.

    ``batch_games`` (default 64; 1: off): the games of a pairing where an agent acts in batches
    (``boardgym.agents.base.BatchAgent``: ``alphazero:search=batched``) are played that many at
    a time in step, the agent searching all the positions where it is on move in one call (one
    network call a simulation for all of them). The schedule, seeds and openings are the same,
    and so are the games (up to the float rounding of a network in a larger batch)."""
    settings = TournamentSettings(
        game_name,
        tuple(specs),
        games_per_pair,
        workers=workers,
        seed=seed,
        game_params=dict(game_params or {}),
        gauntlet=gauntlet,
        progress=progress,
        record_moves=record_moves,
        start_method=start_method,
        backend=backend,
        address=address,
        save_games=save_games,
        openings=openings,
        opening_plies=opening_plies,
        batch_games=batch_games,
    )
    return run_tournament_with(settings, out_dir, resume=resume)


def run_tournament_with(
    settings: TournamentSettings, out_dir: RunFolder | Path | str | None = None, *, resume: bool = False
) -> Tournament:
    """Play the tournament ``settings`` describe and return it with every game (sorted by
    index); ``run_tournament`` for the meaning of each setting. The settings are checked first
    (a ``BoardgymError`` naming the one that is wrong); with ``out_dir`` the folder is locked
    for the run, its earlier games kept on ``resume`` (``results.py``) and each new game
    appended to ``results.jsonl`` as it finishes. ``out_dir`` may be the ``RunFolder`` of a
    default name (``RunFolder.named``), which takes the next free name when it opens if
    another run took it in the meantime (two evaluates started in the same second)."""
    game, batching = _check(settings)
    resumed = (out_dir.path if isinstance(out_dir, RunFolder) else out_dir) if resume else None
    plies = _opening_plies(game, settings, resumed)
    tournament = Tournament(
        settings.game_name,
        dict(settings.game_params),
        settings.labels,
        settings.games_per_pair,
        settings.seed,
        settings.gauntlet,
        game.num_players,
        opening_plies=plies,
    )

    if out_dir is None:
        return _play(tournament, settings, game, None, batching=batching)
    # The one writer of the folder until the tournament ends: a second evaluate (or a --resume)
    # on the same run name is refused instead of writing results.jsonl twice, and a finished
    # tournament is never overwritten without --resume.
    run_folder = out_dir if isinstance(out_dir, RunFolder) else RunFolder(out_dir)
    with run_folder.open(resume=resume, holds=SETTINGS_FILE, what="tournament") as folder:
        tournament.games = previous_games(folder.path, tournament, resume)
        write_settings(folder.path, tournament)
        return _play(tournament, settings, game, folder.path, kept=folder.keep, batching=batching)


def _check(settings: TournamentSettings) -> tuple[Game, frozenset[int]]:
    """The game the settings name, once every setting is known to be playable, and the agents
    (by position) that act in batches; the first setting that is not playable raises a
    ``BoardgymError`` that names it and says what to do."""
    backend, address, game_name, specs = settings.backend, settings.address, settings.game_name, settings.specs
    if backend not in BACKENDS:
        raise BoardgymError(f"unknown backend {backend!r}; known backends: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise BoardgymError(f"--address {address!r} is for --backend ray; drop it or add --backend ray")
    game = make_game(game_name, **settings.game_params)
    if game.num_players not in (1, 2):
        raise BoardgymError(f"tournaments handle one- and two-player games; {game_name} has {game.num_players} players")
    if len(specs) < game.num_players:
        needed = "one agent" if game.num_players == 1 else "at least two agents"
        raise BoardgymError(f"a tournament on {game_name} needs {needed}, got {list(specs)}; list them after --agents")
    if settings.games_per_pair < 1:
        raise BoardgymError(f"games per pairing {settings.games_per_pair} must be at least 1, e.g. --games 100")
    if settings.workers < 1:
        raise BoardgymError(f"workers={settings.workers} must be at least 1")
    if settings.save_games < 0:
        raise BoardgymError(f"save_games={settings.save_games} must be 0 or more (the first N games are saved)")
    if settings.openings not in OPENING_MODES:
        raise BoardgymError(
            f"openings={settings.openings!r} is not one of {', '.join(OPENING_MODES)}; e.g. --openings auto"
        )
    if settings.opening_plies is not None and settings.opening_plies < 0:
        raise BoardgymError(f"opening plies {settings.opening_plies} must be 0 or more, e.g. --opening-plies 4")
    if settings.batch_games < 1:
        raise BoardgymError(
            f"batch_games={settings.batch_games} must be at least 1 (1: every game on its own), e.g. --batch-games 64"
        )
    batching = set()
    for i, spec in enumerate(specs):  # fail here, with the bad spec named, rather than in a worker
        if isinstance(spec, str) and parse_spec(spec)[0] == "human":
            raise BoardgymError("the human agent cannot sit in a tournament; play it with `boardgym play`")
        if acts_in_batches(make_agent(spec, game, seed=settings.seed)):
            batching.add(i)
    return game, frozenset(batching)


def _opening_plies(game: Game, settings: TournamentSettings, resumed: Path | str | None) -> int:
    """The opening suite's plies (0: none) for these settings; see ``run_tournament``."""
    if game.num_players != 2 or settings.openings == "off":
        return 0
    if resumed is not None and settings.openings == "auto" and settings.opening_plies is None:
        saved = saved_opening_plies(resumed)
        if saved is not None:  # keep the suite of the games already played
            return saved
    if settings.opening_plies is not None:  # asked for by name: on under auto too
        return settings.opening_plies
    if settings.openings == "auto" and not any(
        is_deterministic(_agent_for_seed(spec, game), game, settings.seed) for spec in settings.specs
    ):
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


def _play(
    tournament: Tournament,
    settings: TournamentSettings,
    game: Game,
    folder: Path | None,
    kept: Callable[[], None] | None = None,
    batching: frozenset[int] = frozenset(),
) -> Tournament:
    """The fixtures the tournament still owes, played on the backend asked for; each new game
    goes into the tournament and, with a folder, into its results file as it finishes;
    ``kept`` is called once a game is in the file (the run folder keeps it whatever error
    follows, for ``--resume``); ``batching``: the agents that act in batches (``backends``)."""
    done = {played.index for played in tournament.games}
    todo = [fixture for fixture in tournament.schedule(game) if fixture.index not in done]
    bar = _progress_bar(len(done) + len(todo), len(done), tournament.game, settings.progress)
    results = ResultsLog(folder, game, settings.save_games, settings.record_moves) if folder is not None else None
    play = play_on_ray if settings.backend == "ray" else play_local
    plays = play(settings, todo, batching)
    try:
        for played in plays:
            if played.index in done:  # a chunk played twice (a retried task): keep the first copy
                continue
            done.add(played.index)
            tournament.games.append(played)
            if results is not None:
                results.append(played)
                if kept is not None:
                    kept()
                    kept = None
            bar.update(1)
    finally:
        plays.close()  # stops the workers now, also on Ctrl-C or an error
        bar.close()
        if results is not None:
            results.close()
    tournament.games.sort(key=lambda played: played.index)
    return tournament


def _progress_bar(total: int, initial: int, game_name: str, enabled: bool) -> Any:
    """The games' bar on stderr: off with ``progress=False`` and where stderr is not a terminal."""
    return progress_bar(enabled, total=total, initial=initial, desc=f"{game_name} games", unit="game", leave=False)
