"""Self-play on the batched rules: ``parallel`` games held as tensors on ``--device`` and
searched together by ``BatchedMCTS`` (``boardgym.agents.batched_search``), one network call per
simulation for the leaves of every game (``boardgym train alphazero --search batched``).

The moves and records are those of ``selfplay.play_selfplay_games``: the first
``random_opening_moves`` moves uniformly random, then up to ``temperature_moves`` moves drawn
in proportion to the visits, then the most visited move; with ``gumbel`` (Gumbel AlphaZero's
root) every searched move is the winner of sequential halving among Gumbel-sampled actions,
and the policy target is the completed-Q policy instead of the visits. Each position is kept as
the scalar rules' state (read from the batch once a move), with its policy target and the final
result for the player to move, so the replay buffer, its symmetries and the checkpoints are the
same as the tree self-play's. Nothing of a search is kept for the next move (the tree self-play
keeps the chosen subtree); on a CPU the evaluations are cached for the iteration, as the tree
self-play's are. A finished game's slot starts the next game; when no games are left
to start, the batch shrinks (``play_batched_games``), or with ``BatchedSelfPlay.play(keep=True)``
(the trainer's self-play in its own process) the iteration returns once its games have ended
and the games still in flight go on in the next iteration, so the batch never shrinks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.network import AlphaZeroNet, inference_copy
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator
from boardgym.agents.batched_search import BatchedMCTS, sample_actions
from boardgym.batch import batched
from boardgym.batch.rows import cat_rows, put_rows, take_rows
from boardgym.game import Game
from boardgym.train.alphazero.selfplay import (
    SelfPlayResult,
    SelfPlaySettings,
    default_dirichlet_alpha,
    random_start,
)


@dataclass
class _Slot:
    moves: int = 0
    history: list[tuple[Any, int, np.ndarray]] = field(default_factory=list)


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
    """Batched self-play whose games may outlive a call. ``play(..., keep=False)`` plays
    ``num_games`` games to their end, the batch shrinking once no game is left to start (what
    ``play_batched_games`` does). ``play(..., keep=True)`` starts a new game in every slot a
    game leaves, returns once ``num_games`` games (or the few more that ended on the same move)
    have ended, and keeps the others in flight for the next call: the batch stays full, where a
    call that waits for its last games spends its final moves on a batch of a few long games.
    Each call plays every move it makes with the network it is given, also in games begun in an
    earlier call (as continuous self-play does); the positions of a game go back when it ends.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._state: Any = None
        self._slots: list[_Slot] = []
        self._search: BatchedMCTS | None = None  # kept from call to call where it captures
        self._key: Any = None

    @property
    def in_flight(self) -> int:
        """Games begun and not over, kept for the next call."""
        return len(self._slots)

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
        search = self._search_for(rules, network, settings, amp, timed)
        evaluator = search.evaluator
        assert isinstance(evaluator, NetworkBatchEvaluator)
        result = SelfPlayResult()
        started, cpu_started = time.perf_counter(), time.process_time()
        slots, state = self._slots, self._state
        if slots and state.current_player.device != device:  # the network moved since the last call
            state = state._replace(**{name: value.to(device) for name, value in zip(state._fields, state, strict=True)})
        begun = len(slots)
        width = max(1, parallel if keep else min(parallel, num_games))
        if len(slots) < width and (keep or begun < num_games):
            count = width - len(slots) if keep else min(width - len(slots), num_games - begun)
            fresh = _starts(rules, game, count, settings, rng)
            state = fresh if not slots else cat_rows(state, fresh)
            slots = slots + [_Slot() for _ in range(count)]
            begun += count
        while slots and not (keep and result.games >= num_games):
            found = search.search(state, rng)
            scalar = rules.to_scalar_states(state)
            policies = found.policy.float().cpu().numpy()
            players = state.current_player.tolist()
            for slot, position, player, policy in zip(slots, scalar, players, policies, strict=True):
                slot.history.append((position, player, policy))
            actions = found.action
            moves = torch.tensor([slot.moves for slot in slots], device=device)
            if not settings.gumbel and settings.temperature_moves:
                drawn = moves < settings.temperature_moves
                if bool(drawn.any()):
                    actions = torch.where(drawn, sample_actions(found.policy, rng), actions)
            if settings.random_opening_moves:
                opening = moves < settings.random_opening_moves
                if bool(opening.any()):
                    uniform = found.legal.to(found.policy.dtype)
                    actions = torch.where(opening, sample_actions(uniform / uniform.sum(1, keepdim=True), rng), actions)
            state = rules.step(state, actions)
            over = (state.terminated | state.truncated).tolist()
            rewards = state.rewards.tolist()
            finished: list[int] = []
            for row, slot in enumerate(slots):
                slot.moves += 1
                if over[row] or (settings.max_moves and slot.moves >= settings.max_moves):
                    returns = tuple(rewards[row]) if over[row] else (0.0,) * game.num_players
                    result.outcomes.append(returns)
                    result.positions.extend((position, policy, returns[who]) for position, who, policy in slot.history)
                    result.games += 1
                    result.moves += slot.moves
                    finished.append(row)
            if finished:
                restart = finished if keep else finished[: max(0, num_games - begun)]
                begun += len(restart)
                if restart:
                    fresh = _starts(rules, game, len(restart), settings, rng)
                    state = put_rows(state, torch.tensor(restart, device=device), fresh)
                    for row in restart:
                        slots[row] = _Slot()
                dropped = finished[len(restart) :]
                if dropped:
                    keep_rows = [row for row in range(len(slots)) if row not in set(dropped)]
                    slots = [slots[row] for row in keep_rows]
                    if keep_rows:
                        state = take_rows(state, torch.tensor(keep_rows, device=device))
        self._slots, self._state = slots, state if slots else None
        result.network_calls = evaluator.calls
        result.leaves = evaluator.positions
        result.network_seconds = evaluator.seconds
        result.seconds = time.perf_counter() - started
        result.cpu_seconds = time.process_time() - cpu_started
        return result

    def _search_for(
        self, rules: Any, network: AlphaZeroNet, settings: SelfPlaySettings, amp: bool, timed: bool
    ) -> BatchedMCTS:
        """The search of a call: a new one, with the network's inference copy (batch norms
        folded; with capture on CUDA, float16 and channels_last). Where simulations are
        captured, the search of the last call is kept when nothing but the weights changed: the
        new weights are copied into its network in place, so its CUDA graphs (which read those
        tensors) stay valid and are not recorded again every call."""
        game = self.game
        copy = inference_copy(network, fast=settings.capture)
        alpha = default_dirichlet_alpha(game) if settings.dirichlet_alpha is None else settings.dirichlet_alpha
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
            dirichlet_alpha=alpha if alpha > 0 and not settings.gumbel else None,
            dirichlet_fraction=settings.dirichlet_fraction,
            gumbel=settings.gumbel,
            considered=settings.considered,
            cache=CACHE if rules.device.type == "cpu" else 0,  # per call: the weights change
            capture=settings.capture,
        )
        self._search, self._key = search, key
        return search


CACHE = 1 << 16
"""Positions whose evaluations a CPU self-play iteration remembers (``BatchedMCTS(cache=)``):
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


def _starts(rules: Any, game: Game, count: int, settings: SelfPlaySettings, rng: np.random.Generator) -> Any:
    """``count`` games at their start, or after the random moves of ``random_start_moves``."""
    if settings.random_start_moves <= 0:
        return rules.init(count)
    return rules.from_scalar_states([random_start(game, settings.random_start_moves, rng) for _ in range(count)])
