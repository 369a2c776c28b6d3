"""Self-play on the batched rules (``--search batched``): ``parallel`` games held as tensors on
the network's device and searched together by ``BatchedMCTS`` (``boardgym.agents.batched_search``),
one network call per simulation for the leaves of every game.

The moves follow ``selfplay.MoveSchedule``; with ``gumbel`` (Gumbel AlphaZero's root) every
searched move is the winner of sequential halving among Gumbel-sampled actions, and the policy
target is the completed-Q policy instead of the visits.

The games are recorded where they are played (``MoveLog``), with no loop over slots and no
scalar state: a move keeps its tensors as they are (the rules' state searched, the search's
policy and legal mask, the move, the rewards it brought), and they are written into a ring of
moves on the device many moves at a time, one copy a tensor. The host reads one thing a move,
which games just ended: the move's step is the rules' ``step_unchecked`` (the moves are legal by
construction), which reads nothing on the host.
The positions of the games that ended are gathered on the device at once, their observation
planes made in one call of the rules (``Rows``, with the final result for the player to move),
and their moves copied back in one copy, for the records. So a position costs the host nothing
of its own: the replay buffer takes the rows as they are, on the device when it is there. A
move's operations run in inference mode (no autograd bookkeeping); where games start at the
rules' start, the rules' step restarts an ended game itself (``auto_reset``).

Nothing of a search is kept for the next move (the tree self-play keeps the chosen subtree); on
a CPU the evaluations are cached for the call, as the tree self-play's are. A finished game's
slot starts the next game; when no games are left to start, the batch shrinks
(``play_batched_games``), or with ``play(keep=True)`` (the trainer's self-play in its own
process) the call returns once its games have ended and the games still in flight go on in the
next call, so the batch never shrinks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import torch

from boardgym.agents.alphazero.network import AlphaZeroNet, inference_copy
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator
from boardgym.agents.batched_search import BatchedMCTS, SearchResult, sample_actions
from boardgym.batch import batched
from boardgym.batch.rows import cat_rows, put_rows, take_rows
from boardgym.game import Game
from boardgym.train.alphazero.buffer import Rows
from boardgym.train.alphazero.selfplay import (
    MoveSchedule,
    SelfPlayResult,
    SelfPlaySettings,
    alpha_for,
    random_start,
    timer,
)


class MoveLog(NamedTuple):
    """The moves of every game in flight, on the device, as a ring of ``L`` moves: row ``t % L``
    holds move ``t`` (counted over every game of the engine) of every slot (column). It keeps the
    compact state, not the planes: they are made for the positions collected, once."""

    state: Any  # the rules' state before the move, each field [L, B, ...]
    policy: torch.Tensor  # float32[L, B, A]: the search's policy target
    legal: torch.Tensor  # bool[L, B, A]
    action: torch.Tensor  # long[L, B]: the move played
    rewards: torch.Tensor  # float32[L, B, players]: the rewards the move brought (0 until a game ends)

    @classmethod
    def empty(cls, state: Any, actions: int, players: int, length: int) -> MoveLog:
        """A ring of ``length`` moves for the games of ``state`` (a batch of the rules)."""
        batch = len(state.current_player)
        zeros = state.current_player.new_zeros
        return cls(
            type(state)(*(value.new_zeros(length, *value.shape) for value in state)),
            zeros(length, batch, actions, dtype=torch.float32),
            zeros(length, batch, actions, dtype=torch.bool),
            zeros(length, batch, dtype=torch.long),
            zeros(length, batch, players, dtype=torch.float32),
        )

    @property
    def length(self) -> int:
        return int(self.action.shape[0])

    def map(self, change: Callable[..., torch.Tensor], *others: MoveLog) -> MoveLog:
        """``change`` applied to every tensor of the ring (the state's fields included), with
        the same tensor of each of ``others`` as further arguments."""
        tensors = zip(_tensors(self), *map(_tensors, others), strict=True)
        changed = [change(*values) for values in tensors]
        fields = len(self.state)
        return MoveLog(type(self.state)(*changed[:fields]), *changed[fields:])

    def longer(self, length: int, moves: range) -> MoveLog:
        """A ring of ``length`` moves holding ``moves`` (global move numbers) of this one."""
        kept = torch.as_tensor(np.arange(moves.start, moves.stop), device=self.action.device)

        def grown(value: torch.Tensor) -> torch.Tensor:
            bigger = value.new_zeros(length, *value.shape[1:])
            bigger[kept % length] = value[kept % self.length]
            return bigger

        return self.map(grown)

    def columns(self, columns: torch.Tensor) -> MoveLog:
        """The slots ``columns`` (``long[C]``) of every move."""
        return self.map(lambda value: value.index_select(1, columns))

    def joined(self, more: MoveLog) -> MoveLog:
        """These slots, then those of ``more`` (a ring of the same length)."""
        return self.map(lambda value, other: torch.cat((value, other), 1), more)

    def write(self, moves: range, pending: list[_Move]) -> None:
        """The ``pending`` moves (global numbers ``moves``) written in, one copy a tensor."""
        rows = torch.as_tensor(np.arange(moves.start, moves.stop) % self.length, device=self.action.device)
        for ring, values in zip(_tensors(self), zip(*map(_tensors, pending), strict=True), strict=True):
            ring.index_copy_(0, rows, torch.stack(values))


class _Move(NamedTuple):
    """One move of every game in flight, as it is played (written into the ``MoveLog`` later,
    many moves at once): the ring's fields without its first axis."""

    state: Any
    policy: torch.Tensor
    legal: torch.Tensor
    action: torch.Tensor
    rewards: torch.Tensor


def _tensors(entry: MoveLog | _Move) -> tuple[torch.Tensor, ...]:
    """Every tensor of a ring or of one move, in the same order: the state's fields, then the rest."""
    return (*entry.state, *entry[1:])


def play_batched_games(
    game: Game,
    network: AlphaZeroNet,
    num_games: int,
    *,
    parallel: int,
    settings: SelfPlaySettings,
    rng: np.random.Generator,
    amp: bool = False,
    timed: bool = False,
) -> SelfPlayResult:
    """Play ``num_games`` games of ``network`` against itself, ``parallel`` at a time, on the
    network's device (see the module doc). ``timed``: measure the time spent in the network
    (``SelfPlayResult.network_seconds``)."""
    return BatchedSelfPlay(game).play(
        network, num_games, parallel=parallel, settings=settings, rng=rng, amp=amp, timed=timed
    )


class BatchedSelfPlay:
    """Batched self-play whose games may outlive a call (``selfplay.Engine``).
    ``play(..., keep=False)`` plays ``num_games`` games to their end, the batch shrinking once no
    game is left to start (what ``play_batched_games`` does). ``play(..., keep=True)`` starts a
    new game in every slot a game leaves, returns once ``num_games`` games (or the few more that
    ended on the same move) have ended, and keeps the others in flight for the next call: the
    batch stays full, where a call that waits for its last games spends its final moves on a
    batch of a few long games. Each call plays every move it makes with the network it is
    given, also in games begun in an earlier call (as continuous self-play does); the positions
    of a game come back when it ends."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._state: Any = None
        self._log: MoveLog | None = None
        self._pending: list[_Move] = []  # the moves played since the log was last written
        self._rules: Any = None
        self._move = 0  # the next move's number, counted over every game of this engine
        # each slot's first move's number (a list: a move's host bookkeeping touches one or two)
        self._first: list[int] = []
        self._first_on_device = torch.zeros(0, dtype=torch.long)  # the same, where the games are
        self._starts: list[Any] = []  # each slot's start (the scalar rules' state), for its record
        self._ended: list[tuple[int, int, int]] = []  # (slot, first move, last move) a game
        self._ended_starts: list[Any] = []
        self._oldest_ended = _NONE_ENDED  # the first move of the oldest of them
        self._oldest = 0  # the first move of the oldest game in flight or ended, when last seen
        self._search: BatchedMCTS | None = None  # kept from call to call where it captures
        self._draws: torch.Generator | None = None  # the moves' uniform draws (a call's own)
        self._uniforms: torch.Tensor | None = None  # [DRAW_AHEAD, B]: row t - _uniforms_from: move t's
        self._uniforms_from = 0
        self._key: Any = None

    @property
    def in_flight(self) -> int:
        """Games begun and not over, kept for the next call."""
        return len(self._first)

    def play(
        self,
        network: AlphaZeroNet,
        num_games: int,
        *,
        parallel: int,
        settings: SelfPlaySettings,
        rng: np.random.Generator,
        amp: bool = False,
        timed: bool = False,
        keep: bool = False,
    ) -> SelfPlayResult:
        """Games of ``network`` against itself, ``parallel`` at a time (class doc). ``timed``:
        measure the time spent in the network (``SelfPlayResult.network_seconds``)."""
        game = self.game
        device = next(network.parameters()).device
        rules = rules_for(game, device)
        started, cpu_started = timer()
        self._rules = rules
        search = self._search_for(rules, network, settings, amp, timed)
        evaluator = search.evaluator
        assert isinstance(evaluator, NetworkBatchEvaluator)
        result = SelfPlayResult(search_seconds=timer()[0] - started)  # the network's copy for the search
        # no autograd bookkeeping on the many small operations of a move; the rows handed over
        # are copied out of inference mode at the end, so a trainer may change them
        with torch.inference_mode():
            parts = self._play(search, rules, num_games, parallel, settings, rng, keep, result)
        if parts:
            result.rows = Rows(*(value.clone() for value in Rows.cat(parts)))
        result.network_calls = evaluator.calls
        result.leaves = evaluator.positions
        result.network_seconds = evaluator.seconds
        result.seconds = timer()[0] - started
        result.cpu_seconds = timer()[1] - cpu_started
        return result

    def _play(
        self,
        search: BatchedMCTS,
        rules: Any,
        num_games: int,
        parallel: int,
        settings: SelfPlaySettings,
        rng: np.random.Generator,
        keep: bool,
        result: SelfPlayResult,
    ) -> list[Rows]:
        """The moves of a call (``play``): the rows of the games that ended, in parts."""
        device = rules.device
        schedule = MoveSchedule.of(settings)
        parts: list[Rows] = []
        self._to(device)
        begun = self.in_flight
        width = max(1, parallel if keep else min(parallel, num_games))
        if self.in_flight < width and (keep or begun < num_games):
            count = width - self.in_flight if keep else min(width - self.in_flight, num_games - begun)
            self._join(rules, count, settings, rng)
            begun += count
        sync = device.type == "cuda"  # so that search_seconds is the search's (the host waits right after anyway)
        # the rules restart a game that ends in the step itself, where a game starts as the rules start it
        auto_reset = settings.random_start_moves <= 0 and not rules.random_start
        # the moves drawn take their uniform draws from a torch generator seeded from rng, on the
        # device, DRAW_AHEAD moves at a time (a numpy draw and its copy cost a CPU 45 µs a move)
        self._draws = torch.Generator(device).manual_seed(int(rng.integers(2**63)))
        self._uniforms = None
        ended_games = 0
        while self.in_flight and not (keep and ended_games >= num_games):
            searched = time.perf_counter()
            found = search.search(self._state, rng)
            if sync:
                torch.cuda.synchronize(device)
            result.search_seconds += time.perf_counter() - searched
            result.searched += self.in_flight
            self._room()
            actions = self._draw(found, schedule)
            before = self._state
            # the moves are legal by construction: the unchecked step reads nothing on the host, on
            # any device (on a CPU the checked step's looks cost more than the work they skip)
            self._state = state = rules.step_unchecked(before, actions, auto_reset=auto_reset)
            self._pending.append(_Move(before, found.policy, found.legal, actions, state.rewards))
            ended = state.ended.tolist()  # the one host read of a move
            if settings.max_moves:  # or cut at the move limit
                last = self._move + 1 - settings.max_moves  # a game begun at this move or earlier
                finished = [slot for slot, first in enumerate(self._first) if ended[slot] or first <= last]
            else:
                finished = [slot for slot, end in enumerate(ended) if end]
            self._move += 1
            if len(self._pending) >= WRITE_EVERY:  # the moves held twice (pending and ring) stay few
                self._flush()
            if auto_reset:  # the games the step restarted begin at the next move
                self._first_on_device = torch.where(state.ended, self._move, self._first_on_device)
            if not finished:
                continue
            for slot in finished:
                first = self._first[slot]
                self._ended.append((slot, first, self._move - 1))
                self._oldest_ended = min(self._oldest_ended, first)
                self._ended_starts.append(self._starts[slot])
            ended_games += len(finished)
            restart = finished if keep else finished[: max(0, num_games - begun)]
            begun += len(restart)
            if restart:
                # put in where the step did not restart the game (no auto_reset, or the move limit)
                put = restart if not auto_reset else [slot for slot in restart if not ended[slot]]
                self._restart(rules, restart, put, settings, rng)
            if len(restart) < len(finished):  # the batch shrinks: the ended games leave the log first
                parts.append(self._collect(result))
                leaving = set(finished[len(restart) :])
                self._keep([slot for slot in range(self.in_flight) if slot not in leaving])
        if self._ended:
            parts.append(self._collect(result))
        self._flush()
        return parts

    # -- the games in flight --------------------------------------------------------------------
    def _room(self) -> None:
        """Grow the ring where the next move would overwrite a move of a game in flight or of an
        ended game not yet collected."""
        log = self._log
        assert log is not None
        if self._move - self._oldest + 1 <= log.length:  # the oldest move seen last: never later than now
            return
        self._oldest = oldest = min(min(self._first), self._oldest_ended)
        if self._move - oldest + 1 > log.length:
            self._flush()
            self._log = log.longer(2 * log.length, range(oldest, self._move))

    def _restart(
        self, rules: Any, slots: list[int], put: list[int], settings: SelfPlaySettings, rng: np.random.Generator
    ) -> None:
        """New games in ``slots``, those of ``put`` put in (the others the rules' step restarted,
        at the rules' start)."""
        initial = self.game.initial_state()
        for slot in slots:
            self._first[slot] = self._move
            self._starts[slot] = initial
        if put:
            fresh, starts = _starts(rules, self.game, len(put), settings, rng)
            where = torch.as_tensor(put, device=rules.device)
            self._state = put_rows(self._state, where, fresh)
            self._first_on_device.index_fill_(0, where, self._move)
            for slot, start in zip(put, starts, strict=True):
                self._starts[slot] = start

    def _draw(self, found: SearchResult, schedule: MoveSchedule) -> torch.Tensor:
        """The moves to play: the search's, or drawn where the schedule says (one uniform draw
        a game: in proportion to the policy, or uniform over the legal moves)."""
        if not (schedule.random_opening_moves or schedule.temperature_moves):
            return found.action
        moves = self._move - self._first_on_device  # each game's moves so far
        weights = torch.where(schedule.random(moves).unsqueeze(1), found.legal, found.policy)  # legal: 1 or 0
        return torch.where(schedule.random_or_drawn(moves), sample_actions(weights, self._uniform()), found.action)

    def _uniform(self) -> torch.Tensor:
        """``float64[B]`` in [0, 1): this move's draw for every game, a row of a block drawn
        for ``DRAW_AHEAD`` moves (drawn again when it is used up or the batch changed size; a
        draw is never used twice)."""
        row = self._move - self._uniforms_from
        block = self._uniforms
        if block is None or row >= len(block) or block.shape[1] != self.in_flight:
            device = self._first_on_device.device
            block = torch.rand(DRAW_AHEAD, self.in_flight, dtype=torch.float64, device=device, generator=self._draws)
            self._uniforms, self._uniforms_from, row = block, self._move, 0
        return block[row]

    def _flush(self) -> None:
        """The moves played since the last time written into the log, many moves in one copy."""
        if self._pending:
            assert self._log is not None
            self._log.write(range(self._move - len(self._pending), self._move), self._pending)
            self._pending = []

    def _collect(self, result: SelfPlayResult) -> Rows:
        """The replay rows of the ended games not yet collected, with their records and
        outcomes: one gather on the device, one copy of their moves and results to the host."""
        self._flush()
        log = self._log
        assert log is not None
        device = log.action.device
        slots, first, last = (np.array(column, dtype=np.int64) for column in zip(*self._ended, strict=True))
        starts, self._ended, self._ended_starts = self._ended_starts, [], []
        self._oldest_ended = _NONE_ENDED
        lengths = last - first + 1
        offsets = np.cumsum(lengths) - lengths
        game_of = np.repeat(np.arange(len(slots)), lengths)
        moves = first[game_of] + np.arange(int(lengths.sum())) - offsets[game_of]
        at = torch.as_tensor(moves % log.length, device=device)
        slot = torch.as_tensor(slots[game_of], device=device)
        ends = torch.as_tensor(last % log.length, device=device)
        outcomes = log.rewards[ends, torch.as_tensor(slots, device=device)]
        state = type(log.state)(*(value[at, slot] for value in log.state))
        player = state.current_player
        value = outcomes[torch.as_tensor(game_of, device=device), player.long()]
        planes = self._rules.observation(state, player)
        rows = Rows(planes, log.policy[at, slot], log.legal[at, slot], value)
        played = log.action[at, slot].tolist()  # one copy to the host
        for start, offset, count, outcome in zip(
            starts, offsets.tolist(), lengths.tolist(), outcomes.tolist(), strict=True
        ):
            result.records.append((start, tuple(played[offset : offset + count])))
            result.outcomes.append(tuple(outcome))
        result.games += len(slots)
        result.moves += len(moves)
        return rows

    def _join(self, rules: Any, count: int, settings: SelfPlaySettings, rng: np.random.Generator) -> None:
        """``count`` new games after the ones in flight."""
        fresh, starts = _starts(rules, self.game, count, settings, rng)
        length = self._log.length if self._log is not None else _first_length(settings)
        more = MoveLog.empty(fresh, self.game.num_actions, self.game.num_players, length)
        if self.in_flight:
            assert self._log is not None
            self._flush()
            self._state = cat_rows(self._state, fresh)
            self._log = self._log.joined(more)
        else:
            self._state = fresh
            self._log = more  # nothing ended is left to collect between calls
        self._first += [self._move] * count
        begin = torch.full((count,), self._move, dtype=torch.long, device=rules.device)
        self._first_on_device = torch.cat((self._first_on_device, begin)) if len(self._first) > count else begin
        self._starts += starts

    def _keep(self, slots: list[int]) -> None:
        """Only the games in ``slots`` go on (the batch shrinks; no ended game left to collect)."""
        self._flush()
        self._first = [self._first[slot] for slot in slots]
        self._starts = [self._starts[slot] for slot in slots]
        if not len(slots):
            self._state = self._log = None
            return
        assert self._log is not None
        where = torch.as_tensor(slots, device=self._state.current_player.device)
        self._first_on_device = self._first_on_device.index_select(0, where)
        self._state = take_rows(self._state, where)
        self._log = self._log.columns(where)

    def _to(self, device: torch.device) -> None:
        """The games in flight moved to ``device`` (the network moved since the last call)."""
        if self._state is None or self._state.current_player.device == device:
            return
        fields = zip(self._state._fields, self._state, strict=True)
        self._state = self._state._replace(**{name: value.to(device) for name, value in fields})
        self._first_on_device = self._first_on_device.to(device)
        assert self._log is not None
        self._flush()
        self._log = self._log.map(lambda value: value.to(device))

    def _search_for(
        self, rules: Any, network: AlphaZeroNet, settings: SelfPlaySettings, amp: bool, timed: bool
    ) -> BatchedMCTS:
        """The search of a call: a new one, with the network's inference copy (batch norms
        folded; with capture on CUDA, float16 and channels_last). Where simulations are
        captured, the search of the last call is kept when nothing but the weights changed: the
        new weights are copied into its network in place, so its CUDA graphs (which read those
        tensors) stay valid and are not recorded again every call."""
        copy = inference_copy(network, fast=settings.capture)
        key = (rules.device, settings, amp, timed, repr(network.architecture()), next(copy.parameters()).dtype)
        kept = self._search
        if kept is not None and key == self._key and kept.tactics.capture:
            evaluator = kept.evaluator
            assert isinstance(evaluator, NetworkBatchEvaluator)
            evaluator.network.load_state_dict(copy.state_dict())  # in place
            evaluator.reset_stats()
            if kept.tactics.cache is not None:
                kept.tactics.cache.clear()
            return kept
        search = BatchedMCTS(
            rules,
            NetworkBatchEvaluator(copy, amp=amp, timed=timed),
            simulations=settings.simulations,
            c_puct=settings.c_puct,
            dirichlet_alpha=None if settings.gumbel else alpha_for(self.game, settings),
            dirichlet_fraction=settings.dirichlet_fraction,
            gumbel=settings.gumbel,
            considered=settings.considered,
            cache=CACHE if rules.device.type == "cpu" else 0,  # per call: the weights change
            capture=settings.capture,
        )
        self._search, self._key = search, key
        return search


_NONE_ENDED = 2**62  # no ended game waits to be collected

DRAW_AHEAD = 32
"""Moves whose uniform draws (random openings, temperature moves) are drawn at once."""

WRITE_EVERY = 32
"""Moves kept as they were played before they are written into the ring (``MoveLog.write``),
at most: one copy a tensor for this many moves, and a bound on the memory they hold."""

CACHE = 1 << 16
"""Positions whose evaluations a CPU self-play call remembers (``BatchedMCTS(cache=)``):
games that start alike reach the same positions, as the tree self-play's cache knows."""

_RULES: dict[tuple[str, str, str], Any] = {}
"""The batched rules built in this process, by game, parameters and device (a game's tables
are built once, not at every iteration)."""


def rules_for(game: Game, device: torch.device) -> Any:
    """The batched rules of ``game`` on ``device``, built once per process."""
    key = (game.name, repr(game.params()), str(device))
    if key not in _RULES:
        _RULES[key] = batched(game, device=device)
    return _RULES[key]


def _first_length(settings: SelfPlaySettings) -> int:
    """Moves the log holds at first (it doubles when it must hold more)."""
    return 2 * settings.max_moves if settings.max_moves else 64


def _starts(
    rules: Any, game: Game, count: int, settings: SelfPlaySettings, rng: np.random.Generator
) -> tuple[Any, list[Any]]:
    """``count`` games at their start, or after the random moves of ``random_start_moves``, as
    the batch and as the scalar rules' states (the starts of their records)."""
    if settings.random_start_moves <= 0:
        return rules.init(count), [game.initial_state()] * count
    starts = [random_start(game, settings.random_start_moves, rng) for _ in range(count)]
    return rules.from_scalar_states(starts), starts
