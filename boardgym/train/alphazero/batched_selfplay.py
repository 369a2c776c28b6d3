"""Self-play on the batched rules (``--search batched``): ``parallel`` games held as tensors on
the network's device and searched together by ``BatchedMCTS`` (``boardgym.agents.batched_search``),
one network call per simulation for the leaves of every game.

The moves follow ``selfplay.MoveSchedule``; with ``gumbel`` (Gumbel AlphaZero's root) every
searched move is the winner of sequential halving among Gumbel-sampled actions, and the policy
target is the completed-Q policy instead of the visits.

The games are recorded where they are played (``MoveLog``): at every move, for every
slot, the observation planes for the player to move, the search's policy, the legal mask, the
player and the move are written into tensors on the device at the slot's move number, with no
loop over slots and no scalar state. The host reads one thing a move, which games just ended;
the positions of those games are gathered on the device at once (``Rows``, with the final
result for the player to move) and their moves copied back in one copy, for the records. So a
position costs the host nothing of its own: the replay buffer takes the rows as they are, on
the device when it is there.

Nothing of a search is kept for the next move (the tree self-play keeps the chosen subtree); on
a CPU the evaluations are cached for the call, as the tree self-play's are. A finished game's
slot starts the next game; when no games are left to start, the batch shrinks
(``play_batched_games``), or with ``play(keep=True)`` (the trainer's self-play in its own
process) the call returns once its games have ended and the games still in flight go on in the
next call, so the batch never shrinks.
"""

from __future__ import annotations

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
    holds move ``t`` (counted over every game of the engine) of every slot (column)."""

    planes: torch.Tensor  # float32[L, B, *observation_shape], for the player to move
    policy: torch.Tensor  # float32[L, B, A]: the search's policy target
    legal: torch.Tensor  # bool[L, B, A]
    player: torch.Tensor  # int8[L, B]: the player to move
    action: torch.Tensor  # long[L, B]: the move played
    rewards: torch.Tensor  # float32[L, B, players]: the rewards the move brought (0 until a game ends)

    @classmethod
    def empty(cls, game: Game, length: int, batch: int, device: torch.device) -> MoveLog:
        shape, actions = (length, batch), game.num_actions
        return cls(
            torch.zeros(*shape, *game.observation_shape, device=device),
            torch.zeros(*shape, actions, device=device),
            torch.zeros(*shape, actions, dtype=torch.bool, device=device),
            torch.zeros(shape, dtype=torch.int8, device=device),
            torch.zeros(shape, dtype=torch.long, device=device),
            torch.zeros(*shape, game.num_players, device=device),
        )

    @property
    def length(self) -> int:
        return int(self.action.shape[0])

    def longer(self, length: int, moves: range) -> MoveLog:
        """A ring of ``length`` moves holding ``moves`` (global move numbers) of this one."""
        device = self.action.device
        kept = torch.as_tensor(np.arange(moves.start, moves.stop), device=device)
        grown = []
        for value in self:
            bigger = value.new_zeros(length, *value.shape[1:])
            bigger[kept % length] = value[kept % self.length]
            grown.append(bigger)
        return MoveLog(*grown)

    def columns(self, columns: torch.Tensor) -> MoveLog:
        """The slots ``columns`` (``long[C]``) of every move."""
        return MoveLog(*(value.index_select(1, columns) for value in self))

    def joined(self, more: MoveLog) -> MoveLog:
        """These slots, then those of ``more`` (a ring of the same length)."""
        return MoveLog(*(torch.cat((value, other), 1) for value, other in zip(self, more, strict=True)))


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
        self._move = 0  # the next move's number, counted over every game of this engine
        self._first = np.zeros(0, dtype=np.int64)  # the number of each slot's first move
        self._starts: list[Any] = []  # each slot's start (the scalar rules' state), for its record
        self._ended: list[tuple[np.ndarray, np.ndarray, int]] = []  # (slots, first moves, last move)
        self._ended_starts: list[Any] = []
        self._oldest_ended = _NONE_ENDED  # the first move of the oldest of them
        self._search: BatchedMCTS | None = None  # kept from call to call where it captures
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
        search = self._search_for(rules, network, settings, amp, timed)
        evaluator = search.evaluator
        assert isinstance(evaluator, NetworkBatchEvaluator)
        schedule = MoveSchedule.of(settings)
        result = SelfPlayResult(search_seconds=timer()[0] - started)  # the network's copy for the search
        parts: list[Rows] = []
        self._to(device)
        begun = self.in_flight
        width = max(1, parallel if keep else min(parallel, num_games))
        if self.in_flight < width and (keep or begun < num_games):
            count = width - self.in_flight if keep else min(width - self.in_flight, num_games - begun)
            self._join(rules, count, settings, rng)
            begun += count
        sync = device.type == "cuda"  # so that search_seconds is the search's (the host waits right after anyway)
        ended_games = 0
        while self.in_flight and not (keep and ended_games >= num_games):
            searched = timer()[0]
            found = search.search(self._state, rng)
            if sync:
                torch.cuda.synchronize(device)
            result.search_seconds += timer()[0] - searched
            result.searched += self.in_flight
            row = self._room()
            actions = self._record(row, rules, found, schedule, rng)
            self._state = state = rules.step(self._state, actions)
            log = self._log
            assert log is not None
            log.rewards[row] = state.rewards
            over = (state.terminated | state.truncated).cpu().numpy()  # the one host read of a move
            if settings.max_moves:
                over = over | (self._move - self._first + 1 >= settings.max_moves)
            finished = np.flatnonzero(over)
            self._move += 1
            if not len(finished):
                continue
            self._ended.append((finished, self._first[finished], self._move - 1))
            self._oldest_ended = min(self._oldest_ended, int(self._first[finished].min()))
            self._ended_starts += [self._starts[slot] for slot in finished.tolist()]
            ended_games += len(finished)
            restart = finished if keep else finished[: max(0, num_games - begun)]
            begun += len(restart)
            if len(restart):
                fresh, starts = _starts(rules, game, len(restart), settings, rng)
                self._state = put_rows(self._state, torch.as_tensor(restart, device=device), fresh)
                self._first[restart] = self._move
                for slot, start in zip(restart.tolist(), starts, strict=True):
                    self._starts[slot] = start
            if len(restart) < len(finished):  # the batch shrinks: the ended games leave the log first
                parts.append(self._collect(result))
                self._keep(np.setdiff1d(np.arange(self.in_flight), finished[len(restart) :]))
        if self._ended:
            parts.append(self._collect(result))
        result.rows = Rows.cat(parts) if parts else None
        result.network_calls = evaluator.calls
        result.leaves = evaluator.positions
        result.network_seconds = evaluator.seconds
        result.seconds = timer()[0] - started
        result.cpu_seconds = timer()[1] - cpu_started
        return result

    # -- the games in flight --------------------------------------------------------------------
    def _room(self) -> int:
        """The ring row of the next move, the ring grown first where it would overwrite a move of
        a game in flight or of an ended game not yet collected."""
        log = self._log
        assert log is not None
        oldest = min(int(self._first.min()), self._oldest_ended)
        if self._move - oldest + 1 > log.length:
            self._log = log = log.longer(2 * log.length, range(oldest, self._move))
        return self._move % log.length

    def _record(
        self, row: int, rules: Any, found: SearchResult, schedule: MoveSchedule, rng: np.random.Generator
    ) -> torch.Tensor:
        """Write this move of every game into row ``row`` of the log; returns the moves to play."""
        state, log = self._state, self._log
        assert log is not None
        device = state.current_player.device
        moves = self._move - self._first  # each game's moves so far
        actions = found.action
        random = schedule.random(moves)
        drawn = random | schedule.drawn(moves)
        if drawn.any():  # one draw a game: in proportion to the policy, or uniform over the legal moves
            weights = found.policy
            if random.any():
                weights = torch.where(torch.as_tensor(random, device=device).unsqueeze(1), found.legal.float(), weights)
            actions = torch.where(torch.as_tensor(drawn, device=device), sample_actions(weights, rng), actions)
        log.planes[row] = rules.observation(state, state.current_player)
        log.policy[row] = found.policy
        log.legal[row] = found.legal
        log.player[row] = state.current_player
        log.action[row] = actions
        return actions

    def _collect(self, result: SelfPlayResult) -> Rows:
        """The replay rows of the ended games not yet collected, with their records and
        outcomes: one gather on the device, one copy of their moves and results to the host."""
        log = self._log
        assert log is not None
        device = log.action.device
        slots = np.concatenate([slots for slots, _, _ in self._ended])
        first = np.concatenate([first for _, first, _ in self._ended])
        last = np.concatenate([np.full(len(slots), end, dtype=np.int64) for slots, _, end in self._ended])
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
        player = log.player[at, slot].long()
        value = outcomes[torch.as_tensor(game_of, device=device), player]
        rows = Rows(log.planes[at, slot], log.policy[at, slot], log.legal[at, slot], value)
        played = log.action[at, slot].cpu().numpy()
        for start, offset, count, outcome in zip(
            starts, offsets.tolist(), lengths.tolist(), outcomes.cpu().tolist(), strict=True
        ):
            result.records.append((start, tuple(played[offset : offset + count].tolist())))
            result.outcomes.append(tuple(outcome))
        result.games += len(slots)
        result.moves += len(moves)
        return rows

    def _join(self, rules: Any, count: int, settings: SelfPlaySettings, rng: np.random.Generator) -> None:
        """``count`` new games after the ones in flight."""
        fresh, starts = _starts(rules, self.game, count, settings, rng)
        device = rules.device
        length = self._log.length if self._log is not None else _first_length(settings)
        more = MoveLog.empty(self.game, length, count, device)
        if self.in_flight:
            assert self._log is not None
            self._state = cat_rows(self._state, fresh)
            self._log = self._log.joined(more)
        else:
            self._state = fresh
            self._log = more  # nothing ended is left to collect between calls
        self._first = np.concatenate([self._first, np.full(count, self._move, dtype=np.int64)])
        self._starts += starts

    def _keep(self, slots: np.ndarray) -> None:
        """Only the games in ``slots`` go on (the batch shrinks; no ended game left to collect)."""
        self._first = self._first[slots]
        self._starts = [self._starts[slot] for slot in slots.tolist()]
        if not len(slots):
            self._state = self._log = None
            return
        assert self._log is not None
        where = torch.as_tensor(slots, device=self._state.current_player.device)
        self._state = take_rows(self._state, where)
        self._log = self._log.columns(where)

    def _to(self, device: torch.device) -> None:
        """The games in flight moved to ``device`` (the network moved since the last call)."""
        if self._state is None or self._state.current_player.device == device:
            return
        fields = zip(self._state._fields, self._state, strict=True)
        self._state = self._state._replace(**{name: value.to(device) for name, value in fields})
        assert self._log is not None
        self._log = MoveLog(*(value.to(device) for value in self._log))

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
