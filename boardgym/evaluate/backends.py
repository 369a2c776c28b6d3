"""Where a tournament's games are played (``BACKENDS``): ``play_local``, worker processes on
this machine (or this process, for one worker); ``play_on_ray``, Ray tasks on a Ray started
here or on a cluster (``boardgym.cluster``).

Each takes the tournament's ``TournamentSettings`` and the fixtures still owed, and yields the
finished games in any order, each once; the results file and the tournament are the same
whichever played them. Every process plays its fixtures at a ``_Table``: the game and the
agents, built once per process from the settings. The schedule fixes each game's seats, seed
and opening, so which process plays a game, and when, changes nothing in its moves.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import as_completed

from boardgym.agents.base import Agent, BatchAgent
from boardgym.agents.registry import make_agent
from boardgym.evaluate.match import Match, MatchRecord, play_lockstep
from boardgym.evaluate.schedule import Fixture, PlayedGame, TournamentSettings
from boardgym.games import make_game
from boardgym.procs import WorkerPool

BACKENDS: dict[str, str] = {
    "local": "worker processes on this machine (--workers)",
    "ray": "Ray tasks on a Ray started here or on the cluster at --address (pip install 'boardgym[ray]')",
}


def play_local(
    settings: TournamentSettings, todo: list[Fixture], batching: frozenset[int] = frozenset()
) -> Generator[PlayedGame, None, None]:
    """``todo`` in ``settings.workers`` processes (``settings.start_method``; default ``fork``
    on Linux, ``spawn`` elsewhere), or in this process for one worker or one game. Closing the
    generator early (Ctrl-C, an error) ends the workers and the games they were playing.

    ``batching``: the agents (by position) that act in batches (``BatchAgent``): with
    ``settings.batch_games`` above 1, their pairings' games go to the workers in chunks of one
    pairing, ``batch_games`` games each, played together (``_Table.play_many``)."""
    if not todo:
        return
    if settings.workers == 1 or len(todo) == 1:
        yield from _Table(settings).play_many(todo)
        return
    start_method = settings.start_method
    if start_method is None:
        start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    workers = min(settings.workers, len(todo))
    size = max(1, min(16, len(todo) // (workers * 16)))  # small chunks: steady progress, little lost on Ctrl-C
    # An executor rather than multiprocessing.Pool: a worker that dies (killed, out of memory)
    # breaks the run with an error instead of leaving the pool waiting forever. Leaving the
    # block early (Ctrl-C, an error, SIGTERM, the generator closed) stops the workers and the
    # games they were playing; the workers end by themselves if this process is killed.
    with WorkerPool(workers, start_method=start_method, initializer=_init_worker, initargs=(settings,)) as executor:
        together = [fixture for fixture in todo if _together(fixture, batching, settings)]
        alone = [fixture for fixture in todo if not _together(fixture, batching, settings)]
        chunks = _pairing_chunks(together, settings.batch_games)
        chunks += [alone[i : i + size] for i in range(0, len(alone), size)]
        futures = [executor.submit(_play_chunk, chunk) for chunk in chunks]
        for future in as_completed(futures):
            yield from future.result()


def play_on_ray(
    settings: TournamentSettings, todo: list[Fixture], batching: frozenset[int] = frozenset()
) -> Generator[PlayedGame, None, None]:
    """``todo`` as Ray tasks on the cluster at ``settings.address``, or on a Ray started here
    with ``settings.workers`` CPUs (``boardgym.cluster.imap_chunks``: a task whose worker dies
    is played again, its chunk's games all together or not at all), each task playing its chunk
    with the same ``_Table`` as the local workers, built once per Ray worker process. Agent
    objects travel pickled: their classes must be importable on every node. Relative paths in
    specs (``checkpoint=runs/...``) are read from this process's folder, on every machine
    where that folder exists (a shared file system)."""
    from boardgym.cluster import imap_chunks

    table = (uuid.uuid4().hex, settings, os.getcwd())
    # a task plays its chunk's games of one pairing together where an agent acts in batches
    # (Ray's chunks stay short: up to 16 games); the pairings' games in a row for that
    if batching and settings.batch_games > 1:
        todo = sorted(todo, key=lambda f: (not _together(f, batching, settings), sorted(f.seats), f.index))
    yield from imap_chunks(
        _play_table_chunk,
        table,
        todo,
        address=settings.address,
        num_cpus=settings.workers,
        what="the tournament's agents",
    )


class _Table:
    """The game and the agents (built once) that play the fixtures handed to one process."""

    def __init__(self, settings: TournamentSettings) -> None:
        self.game = make_game(settings.game_name, **settings.game_params)
        self.specs = list(settings.specs)
        self.seed = settings.seed
        self.save_games = settings.save_games
        self.record_moves = settings.record_moves
        self.batch_games = settings.batch_games
        self.agents: dict[int, Agent] = {}
        self.copies: dict[int, list[Agent]] = {}  # more players of an agent, for games played together

    def play(self, fixture: Fixture) -> PlayedGame:
        players = [self._agent(i) for i in fixture.seats]
        return self._finished(fixture, self._match(fixture, players).play_out())

    def play_many(self, fixtures: Sequence[Fixture]) -> Iterator[PlayedGame]:
        """``fixtures`` played, each game yielded as it ends: the games of a pairing where an
        agent acts in batches (``BatchAgent``) together, ``batch_games`` at a time
        (``match.play_lockstep``), with one player of each agent per game; the others one by one."""
        batched: dict[tuple[int, ...], list[Fixture]] = {}
        for fixture in fixtures:
            if self.batch_games > 1 and self._lockstep(fixture.seats):
                batched.setdefault(tuple(sorted(fixture.seats)), []).append(fixture)
            else:
                yield self.play(fixture)
        for group in batched.values():
            for start in range(0, len(group), self.batch_games):
                chunk = group[start : start + self.batch_games]
                matches = [
                    self._match(fixture, [self._copy(i, n) for i in fixture.seats]) for n, fixture in enumerate(chunk)
                ]
                for k, record in play_lockstep(self.game, matches):
                    yield self._finished(chunk[k], record)

    def _match(self, fixture: Fixture, players: list[Agent]) -> Match:
        timed = self.record_moves and fixture.index < self.save_games
        return Match(
            self.game,
            players,
            self.seed,
            index=fixture.index,
            record_moves=self.record_moves,
            record_times=timed,
            opening=fixture.opening,
        )

    @staticmethod
    def _finished(fixture: Fixture, record: MatchRecord) -> PlayedGame:
        return PlayedGame(fixture.index, fixture.seats, record)

    def _lockstep(self, seats: tuple[int, ...]) -> bool:
        """Whether a pairing's games are played together: one of its agents acts in batches
        and every other one can have a player per game (a spec string, or a ``BatchAgent``)."""
        agents = [self._agent(i) for i in seats]
        if not any(acts_in_batches(agent) for agent in agents):
            return False
        return all(isinstance(self.specs[i], str) or isinstance(self._agent(i), BatchAgent) for i in seats)

    def _agent(self, i: int) -> Agent:
        if i not in self.agents:
            self.agents[i] = make_agent(self.specs[i], self.game, seed=self.seed)
        return self.agents[i]

    def _copy(self, i: int, n: int) -> Agent:
        """Player ``n`` of agent ``i`` for games played together (player 0: the agent itself),
        made once and reset for each game like the agent: a fork of a ``BatchAgent``, the spec
        built again otherwise."""
        copies = self.copies.setdefault(i, [self._agent(i)])
        while len(copies) <= n:
            agent = self._agent(i)
            copies.append(
                agent.fork() if isinstance(agent, BatchAgent) else make_agent(self.specs[i], self.game, seed=self.seed)
            )
        return copies[n]


def _together(fixture: Fixture, batching: frozenset[int], settings: TournamentSettings) -> bool:
    """Whether the fixture's pairing is played in batches (see ``play_local``)."""
    return settings.batch_games > 1 and bool(batching.intersection(fixture.seats))


def _pairing_chunks(fixtures: list[Fixture], size: int) -> list[list[Fixture]]:
    """``fixtures`` by pairing, in chunks of at most ``size``, each in index order."""
    pairings: dict[tuple[int, ...], list[Fixture]] = {}
    for fixture in fixtures:
        pairings.setdefault(tuple(sorted(fixture.seats)), []).append(fixture)
    return [group[i : i + size] for group in pairings.values() for i in range(0, len(group), size)]


def acts_in_batches(agent: Agent) -> bool:
    """Whether ``agent`` moves in many games at once (``BatchAgent`` with ``acts_in_batches``)."""
    return isinstance(agent, BatchAgent) and bool(agent.acts_in_batches)


_WORKER_TABLE: _Table | None = None


def _init_worker(settings: TournamentSettings) -> None:
    global _WORKER_TABLE
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    _WORKER_TABLE = _Table(settings)


def _play_chunk(fixtures: list[Fixture]) -> list[PlayedGame]:
    assert _WORKER_TABLE is not None
    return list(_WORKER_TABLE.play_many(fixtures))


_RAY_TABLE: tuple[str, _Table] | None = None


def _play_table_chunk(table: tuple[str, TournamentSettings, str], fixtures: list[Fixture]) -> list[PlayedGame]:
    """One Ray task: ``fixtures`` played at the table that ``table`` (a key naming the
    tournament, its settings, the caller's folder) describes, built on the first task of this
    tournament in the process."""
    global _RAY_TABLE
    key, settings, folder = table
    if os.path.isdir(folder):  # agents load their files lazily, at their first game
        os.chdir(folder)
    if _RAY_TABLE is None or _RAY_TABLE[0] != key:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        _RAY_TABLE = (key, _Table(settings))
        if "torch" in sys.modules:  # one thread per task, as in the local workers
            sys.modules["torch"].set_num_threads(1)
    return list(_RAY_TABLE[1].play_many(fixtures))
