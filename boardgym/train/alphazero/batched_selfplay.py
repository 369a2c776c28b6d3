"""Self-play on the batched rules (``--search batched``): ``parallel`` games held as tensors on
the network's device and searched together by ``BatchedMCTS`` (``boardgym.agents.batched_search``),
one network call per simulation for the leaves of every game.

The moves follow ``selfplay.MoveSchedule``; with ``gumbel`` (Gumbel AlphaZero's root) every
searched move is the winner of sequential halving among Gumbel-sampled actions, and the policy
target is the completed-Q policy instead of the visits.

The games are recorded where they are played (``Trajectories``): at every move, for every
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


class Trajectories(NamedTuple):
    """The moves of every game in flight, on the device: row = slot, column = move number."""

    planes: torch.Tensor  # float32[B, T, *observation_shape], for the player to move
    policy: torch.Tensor  # float32[B, T, A]
    legal: torch.Tensor  # bool[B, T, A]
    player: torch.Tensor  # int8[B, T]
    action: torch.Tensor  # long[B, T]

    @classmethod
    def empty(cls, game: Game, batch: int, length: int, device: torch.device) -> Trajectories:
        shape, actions = (batch, length), game.num_actions
        return cls(
            torch.zeros(*shape, *game.observation_shape, device=device),
            torch.zeros(*shape, actions, device=device),
            torch.zeros(*shape, actions, dtype=torch.bool, device=device),
            torch.zeros(shape, dtype=torch.int8, device=device),
            torch.zeros(shape, dtype=torch.long, device=device),
        )

    def longer(self, length: int) -> Trajectories:
        """The same moves with room for ``length`` moves a game."""
        grown = []
        for value in self:
            more = value.new_zeros(value.shape[0], length - value.shape[1], *value.shape[2:])
            grown.append(torch.cat([value, more], 1))
        return Trajectories(*grown)


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
        self._moves = np.zeros(0, dtype=np.int64)  # each slot's moves so far, on the host
        self._starts: list[Any] = []  # each slot's start (the scalar rules' state), for its record
        self._trajectories: Trajectories | None = None
        self._rows = torch.arange(0)  # 0 .. the games in flight, on their device
        self._search: BatchedMCTS | None = None  # kept from call to call where it captures
        self._key: Any = None

    @property
    def in_flight(self) -> int:
        """Games begun and not over, kept for the next call."""
        return len(self._moves)

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
        ended_rows: list[Rows] = []
        self._to(device)
        begun = self.in_flight
        width = max(1, parallel if keep else min(parallel, num_games))
        if self.in_flight < width and (keep or begun < num_games):
            count = width - self.in_flight if keep else min(width - self.in_flight, num_games - begun)
            self._join(rules, count, settings, rng)
            begun += count
        sync = device.type == "cuda"  # so that search_seconds is the search's (the host waits right after anyway)
        while self.in_flight and not (keep and result.games >= num_games):
            searched = timer()[0]
            found = search.search(self._state, rng)
            if sync:
                torch.cuda.synchronize(device)
            result.search_seconds += timer()[0] - searched
            actions = self._record(rules, found, schedule, rng)
            self._state = state = rules.step(self._state, actions)
            self._moves += 1
            ended = state.terminated | state.truncated
            over = ended.cpu().numpy()  # the one host read of a move
            if settings.max_moves:
                over = over | (self._moves >= settings.max_moves)
            finished = np.flatnonzero(over)
            if not len(finished):
                continue
            ended_rows.append(self._collect(finished, ended, result))
            restart = finished if keep else finished[: max(0, num_games - begun)]
            begun += len(restart)
            if len(restart):
                fresh, starts = _starts(rules, game, len(restart), settings, rng)
                where = torch.as_tensor(restart, device=device)
                self._state = put_rows(self._state, where, fresh)
                self._moves[restart] = 0
                for row, start in zip(restart.tolist(), starts, strict=True):
                    self._starts[row] = start
            if len(restart) < len(finished):
                self._keep(np.setdiff1d(np.arange(self.in_flight), finished[len(restart) :]))
        result.rows = Rows.cat(ended_rows) if ended_rows else None
        result.network_calls = evaluator.calls
        result.leaves = evaluator.positions
        result.network_seconds = evaluator.seconds
        result.seconds = timer()[0] - started
        result.cpu_seconds = timer()[1] - cpu_started
        return result

    # -- the games in flight --------------------------------------------------------------------
    def _record(
        self, rules: Any, found: SearchResult, schedule: MoveSchedule, rng: np.random.Generator
    ) -> torch.Tensor:
        """Write this move of every game into the trajectories; returns the moves to play."""
        state, moves = self._state, self._moves
        trajectories = self._trajectories
        assert trajectories is not None
        length = trajectories.action.shape[1]
        if int(moves.max()) >= length:
            trajectories = self._trajectories = trajectories.longer(2 * length)
        device = state.current_player.device
        if len(self._rows) != len(moves) or self._rows.device != device:
            self._rows = torch.arange(len(moves), device=device)
        rows, at = self._rows, torch.as_tensor(moves, device=device)
        player = state.current_player
        actions = found.action
        random = schedule.random(moves)
        drawn = random | schedule.drawn(moves)
        if drawn.any():  # one draw a game: from the policy, or uniformly where the move is random
            policy = found.policy
            if random.any():
                uniform = found.legal.to(policy.dtype)
                uniform = uniform / uniform.sum(1, keepdim=True)
                policy = torch.where(torch.as_tensor(random, device=device).unsqueeze(1), uniform, policy)
            actions = torch.where(torch.as_tensor(drawn, device=device), sample_actions(policy, rng), actions)
        trajectories.planes[rows, at] = rules.observation(state, player)
        trajectories.policy[rows, at] = found.policy.float()
        trajectories.legal[rows, at] = found.legal
        trajectories.player[rows, at] = player.to(torch.int8)
        trajectories.action[rows, at] = actions
        return actions

    def _collect(self, finished: np.ndarray, ended: torch.Tensor, result: SelfPlayResult) -> Rows:
        """The replay rows of the games ``finished`` (slots, ascending) and their records and
        outcomes: one gather on the device, one copy of their moves and results to the host."""
        trajectories = self._trajectories
        assert trajectories is not None
        device = ended.device
        lengths = self._moves[finished]
        total = int(lengths.sum())
        game_of = np.repeat(np.arange(len(finished)), lengths)
        move_of = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        slot = torch.as_tensor(finished[game_of], device=device)
        at = torch.as_tensor(move_of, device=device)
        which = torch.as_tensor(finished, device=device)
        returns = self._state.rewards.index_select(0, which).float()
        returns = torch.where(ended.index_select(0, which).unsqueeze(1), returns, torch.zeros_like(returns))
        player = trajectories.player[slot, at].long()
        value = returns[torch.as_tensor(game_of, device=device), player]
        rows = Rows(trajectories.planes[slot, at], trajectories.policy[slot, at], trajectories.legal[slot, at], value)
        moves = trajectories.action[slot, at].cpu().numpy()
        outcomes = returns.cpu().tolist()
        for row, first, count, outcome in zip(
            finished.tolist(), (np.cumsum(lengths) - lengths).tolist(), lengths.tolist(), outcomes, strict=True
        ):
            result.records.append((self._starts[row], tuple(moves[first : first + count].tolist())))
            result.outcomes.append(tuple(outcome))
        result.games += len(finished)
        result.moves += total
        return rows

    def _join(self, rules: Any, count: int, settings: SelfPlaySettings, rng: np.random.Generator) -> None:
        """``count`` new games after the ones in flight."""
        fresh, starts = _starts(rules, self.game, count, settings, rng)
        device = rules.device
        more = Trajectories.empty(self.game, count, _first_length(settings), device)
        if self._trajectories is not None and self._trajectories.action.shape[1] > more.action.shape[1]:
            more = more.longer(self._trajectories.action.shape[1])
        elif self._trajectories is not None and self._trajectories.action.shape[1] < more.action.shape[1]:
            self._trajectories = self._trajectories.longer(more.action.shape[1])
        if self.in_flight:
            assert self._trajectories is not None
            self._state = cat_rows(self._state, fresh)
            self._trajectories = cat_rows(self._trajectories, more)
        else:
            self._state, self._trajectories = fresh, more
        self._moves = np.concatenate([self._moves, np.zeros(count, dtype=np.int64)])
        self._starts += starts

    def _keep(self, rows: np.ndarray) -> None:
        """Only the games in ``rows`` go on (the batch shrinks)."""
        self._moves = self._moves[rows]
        self._starts = [self._starts[row] for row in rows.tolist()]
        if not len(rows):
            self._state = self._trajectories = None
            return
        assert self._trajectories is not None
        where = torch.as_tensor(rows, device=self._state.current_player.device)
        self._state = take_rows(self._state, where)
        self._trajectories = take_rows(self._trajectories, where)

    def _to(self, device: torch.device) -> None:
        """The games in flight moved to ``device`` (the network moved since the last call)."""
        if self._state is None or self._state.current_player.device == device:
            return
        self._state = self._state._replace(
            **{name: value.to(device) for name, value in zip(self._state._fields, self._state, strict=True)}
        )
        assert self._trajectories is not None
        self._trajectories = Trajectories(*(value.to(device) for value in self._trajectories))

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
    """Moves a game's trajectory has room for at first (it doubles when a game is longer)."""
    return settings.max_moves if settings.max_moves else 32


def _starts(
    rules: Any, game: Game, count: int, settings: SelfPlaySettings, rng: np.random.Generator
) -> tuple[Any, list[Any]]:
    """``count`` games at their start, or after the random moves of ``random_start_moves``, as
    the batch and as the scalar rules' states (the starts of their records)."""
    if settings.random_start_moves <= 0:
        return rules.init(count), [game.initial_state()] * count
    starts = [random_start(game, settings.random_start_moves, rng) for _ in range(count)]
    return rules.from_scalar_states(starts), starts
