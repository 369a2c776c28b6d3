"""The batched rules: B games of one kind held as tensors and stepped in one call, on any device.

A game's batched rules are a ``BatchedGame`` over the same ``Game`` (its parameters), in the
shape of pgx: a few functions over a state that is a NamedTuple of tensors whose leading
dimension is the batch::

    rules = batched("connect_four", device="cuda")        # or BatchedConnectFour(ConnectFour())
    state = rules.init(4096, generator)
    while True:
        actions = rules.random_actions(state, generator)    # or a policy's: LongTensor[B]
        state = rules.step(state, actions, auto_reset=True)
        rules.legal_mask(state)                             # bool[B, A]
        rules.observation(state, state.current_player)      # float32[B, C, H, W]

Every state holds, besides the game's own boards, the fields ``COMMON`` names, the same in
every game:

- ``current_player`` ``long[B]``: who moves (0 or 1);
- ``terminated`` / ``truncated`` ``bool[B]``: the game in this slot is over, by the rules or by a
  move limit;
- ``ended`` ``bool[B]``: the last ``step`` ended this slot's game (with ``auto_reset`` the slot
  then already holds a new game, and ``ended`` and ``rewards`` still tell how the old one ended);
- ``rewards`` ``float32[B, 2]``: each player's reward for the last step: +1 / -1 / 0 when it ended
  the game, 0 otherwise;
- ``steps`` ``long[B]``: moves played in this slot's game.

``step`` handles, once for every game (as pgx's ``Env.step`` does): an illegal action (not legal
in the position, or outside the action space) ends that game with -1 for the player who chose
it and 0 for the other, as the scalar envs do, never a crash; a finished game is left as it is
(rewards 0); ``auto_reset=True`` starts a new game in every slot whose game ended. A bad
argument (a batch of 0, actions of the wrong shape, dtype or device) is one ``BoardgymError``.

``legal_mask(state)`` (``bool[B, A]``; all false once a game is over) is computed when asked,
not kept in the state: a loop that plays random moves never needs it (``random_actions`` and
the legality test of ``step`` read the game's boards directly where a game can).

The scalar rules are the specification: ``to_scalar_states`` and ``from_scalar_states``
convert both ways, and the tests play both move for move. Precomputed tables (lines,
neighbours, columns) are built once from the scalar rules' own geometry, on the device.

What is checked where (``boardgym.batch.checks``): every public method that takes a state
checks its structure (its NamedTuple type, its fields' shapes, dtypes and device, one batch
size), from metadata alone, never waiting for the device; ``step`` checks its arguments the
same way. ``check_state(state)`` checks the values too (board codes, players, the bitboards'
and Hex's forest's consistency): it reads them on the host, so it runs on demand, in
``from_scalar_states`` and in the native vector env's ``reset``, never in ``step``.

Sync-free stepping: with ``sync_free`` on (the default off the CPU) ``step``, ``restart``,
``random_actions``, ``legal_mask`` and ``observation`` never read a value on the host and
make every shape from the batch alone, so that a step (auto-reset included) can be captured
as a CUDA graph or compiled whole. On the CPU the default is off: there a look at a value
(is any game over? is every action in range?) costs less than the work it skips. While
``torch.compile`` traces, the rules never look, whatever the flag. ``step_unchecked`` is the
step without the argument checks and never looking, for a caller that has checked once (a
compiled or captured loop, the batched search); ``boardgym.batch.graph_safety`` proves both.
"""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, Protocol, TypeVar

import torch

from boardgym.batch import checks
from boardgym.batch.checks import StateSpec
from boardgym.batch.rows import cat_rows as cat_rows
from boardgym.batch.rows import put_rows as put_rows
from boardgym.batch.rows import put_rows_ as put_rows_
from boardgym.batch.rows import take_rows as take_rows
from boardgym.batch.rows import where_rows
from boardgym.batch.tables import constant, uniform_pick
from boardgym.game import Game
from boardgym.types import BoardgymError

COMMON = ("current_player", "terminated", "truncated", "ended", "rewards", "steps")
"""The fields every batched state has (see the module doc)."""


class BatchState(Protocol):
    """What every batched state is: a NamedTuple of tensors with the ``COMMON`` fields."""

    @property
    def current_player(self) -> torch.Tensor: ...
    @property
    def terminated(self) -> torch.Tensor: ...
    @property
    def truncated(self) -> torch.Tensor: ...
    @property
    def ended(self) -> torch.Tensor: ...
    @property
    def rewards(self) -> torch.Tensor: ...
    @property
    def steps(self) -> torch.Tensor: ...
    @property
    def _fields(self) -> tuple[str, ...]: ...
    @property
    def _replace(self) -> Callable[..., Any]: ...
    def __iter__(self) -> Iterator[torch.Tensor]: ...


S = TypeVar("S", bound=BatchState)
T = TypeVar("T")

REWARDS = ((0.0, 0.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, 0.0), (0.0, -1.0))
"""Each player's reward by outcome: none (the game goes on, or a draw), player 0 won, player 1
won, player 0 played an illegal action, player 1 did."""

MAX_BATCH = 2**26
"""The largest batch ``init`` accepts (64M games): a guard against a typo, not a memory check."""


class BatchedGame(ABC, Generic[S]):
    """The batched rules of ``game`` on ``device`` (see the module doc). A subclass writes the
    game's own part: ``_start`` (its boards at the start), ``_move`` (legal moves applied; or
    the whole ``_step``, illegal moves and rewards too, where the game can do it in fewer
    operations), ``legal_mask``, ``_planes`` (the observation) and the conversions; the rest
    is here."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A game's own ``legal_mask`` and ``random_actions`` check the state's structure first
        (metadata only; nothing for the state made last), as every public entry does."""
        super().__init_subclass__(**kwargs)
        for name in ("legal_mask", "random_actions"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "checks_structure", False):
                setattr(cls, name, _checking(method))

    def __init__(self, game: Game, device: str | torch.device = "cpu") -> None:
        if game.num_players != 2:
            raise BoardgymError(f"batched rules are for two-player games; {game.name} has {game.num_players} player(s)")
        self.game = game
        self.device = resolve_device(device)
        self.num_actions = game.num_actions
        self.observation_shape = tuple(game.observation_shape)
        self._start_state: S | None = None
        self.sync_free = self.device.type != "cpu"
        """Never read a value on the host (see the module doc): on by default off the CPU."""
        self._twin: BatchedGame[S] | None = None
        self._spec: StateSpec | None = None
        self._made: Any = object()  # none yet
        self._generator_seen: torch.Generator | None = None
        """The state ``step`` returned last (a tuple: its fields cannot be swapped for others)."""
        # each row of REWARDS (two float32) seen as one int64: a look-up of [B] rows, not [B, 2]
        self._reward_rows = constant(REWARDS, self.device).view(torch.int64).view(-1)

    # -- the API -----------------------------------------------------------------------------------
    def init(self, batch: int, generator: torch.Generator | None = None) -> S:
        """``batch`` games at their start. ``generator`` (where the game's start is random) must
        live on this device."""
        if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
            raise BoardgymError(f"batch={batch!r} must be a whole number of games from 1 to {MAX_BATCH:,}")
        self._check_generator(generator)
        self._made = self._start(batch, generator)
        return self._made

    def step(
        self,
        state: S,
        actions: torch.Tensor,
        *,
        auto_reset: bool = False,
        generator: torch.Generator | None = None,
        where: torch.Tensor | None = None,
    ) -> S:
        """Every game of ``state`` plays its action (``long[B]``); see the module doc for
        illegal actions, finished games and ``auto_reset``. ``where`` (``bool[B]``): only those
        games play; the others stay as they are, their actions unread."""
        compiling = torch.compiler.is_compiling()
        if compiling or state is not self._made:  # the state made last: its structure is known
            self.check_structure(state)
        actions = self.check_actions(state, actions)
        if where is not None:
            where = self.check_mask(state, where, "where")
        if generator is not None and generator is not self._generator_seen:  # checked once
            self._check_generator(generator)
            if not compiling:
                self._generator_seen = generator
        try:
            after = self._advance(state, actions, auto_reset, generator, where)
        except IndexError:  # a value no table has a row for: only a state from outside has one
            raise BoardgymError(
                "the state holds a value out of the rules' range: check_state(state) names the field"
            ) from None
        if not compiling:
            self._made = after
        return after

    def step_unchecked(
        self,
        state: S,
        actions: torch.Tensor,
        *,
        auto_reset: bool = False,
        generator: torch.Generator | None = None,
        where: torch.Tensor | None = None,
    ) -> S:
        """``step`` without its checks, never reading a value on the host, on any device: for a
        caller that has checked its state and arguments once (``actions`` ``long[B]`` and
        ``where`` ``bool[B]`` on this device) and compiles or captures its loop. Illegal and
        out-of-range actions are scored as ``step`` scores them."""
        twin = self._twin
        if twin is None:
            twin = self
            if not self.sync_free:
                twin = copy.copy(self)
                twin.sync_free = True
            self._twin = twin._twin = twin
        return twin._advance(state, actions, auto_reset, generator, where)

    def _advance(
        self, state: S, actions: torch.Tensor, auto_reset: bool, generator: torch.Generator | None, where: Any
    ) -> S:
        after = self._step(state, actions, self._in_space(actions), where)
        if auto_reset and self._may_be_any(after.ended):
            after = self._reset(after, after.ended, generator)
        return after

    def restart(self, state: S, where: torch.Tensor, generator: torch.Generator | None = None) -> S:
        """``state`` with a new game in every slot where ``where`` (``bool[B]``), the others as
        they are (``ended`` and ``rewards`` kept)."""
        self.check_structure(state)
        where = self.check_mask(state, where, "where")
        after = self._reset(state, where, generator) if self._may_be_any(where) else state
        if not torch.compiler.is_compiling():
            self._made = after
        return after

    def observation(self, state: S, player: int | torch.Tensor) -> torch.Tensor:
        """``float32[B, *observation_shape]``: the planes ``Game.observation`` gives, from the
        view of ``player`` (an int for every game, or ``long[B]``, e.g. ``state.current_player``)."""
        batch = self.check_structure(state)
        if isinstance(player, int) and not isinstance(player, bool):
            if player not in (0, 1):
                raise BoardgymError(f"player={player!r} must be 0 or 1")
            player = torch.full((batch,), player, dtype=torch.long, device=self.device)
        elif not isinstance(player, torch.Tensor) or player.shape != (batch,):
            raise BoardgymError(f"player must be 0, 1 or a tensor of {batch} players, not {player!r}")
        return self._planes(state, player.to(self.device, torch.long))

    @abstractmethod
    def legal_mask(self, state: S) -> torch.Tensor:
        """``bool[B, A]``: each game's legal actions (none once it is over)."""

    def is_legal(self, state: S, actions: torch.Tensor) -> torch.Tensor:
        """``bool[B]``: whether each game's action (in the action space) is legal there; a game
        may test it without building the whole mask."""
        return self.legal_mask(state).gather(1, actions.unsqueeze(1)).squeeze(1)

    def random_actions(self, state: S, generator: torch.Generator | None = None) -> torch.Tensor:
        """A uniformly random legal action for every game (an arbitrary one where a game is over:
        ``step`` ignores it)."""
        return uniform_pick(self.legal_mask(state), generator)

    def to_scalar_states(self, state: S) -> list[Any]:
        """The scalar rules' state of every game of the batch."""
        self.check_structure(state)
        return self._to_scalar_states(state)

    def from_scalar_states(self, states: Sequence[Any]) -> S:
        """A batch holding these scalar states (``ended`` false, ``rewards`` zero, ``steps`` the
        moves that reached each, or the fewest that can where a state does not record them);
        one sentence for anything that is not a list of this game's states (``check_state``
        runs on the batch made)."""
        self._made = checks.from_scalar_states(self, states)
        return self._made

    def check_structure(self, state: Any, name: str = "state") -> int:
        """The batch size of ``state``, or one sentence: not this game's state type, or a field
        of another shape, dtype, device or batch size. Metadata only: it never waits for the
        device."""
        return checks.check_structure(self, state, name)

    def check_state(self, state: Any) -> None:
        """One sentence naming the field where a value of ``state`` is not one the rules can
        reach (a board code, a player, the bitboards' or Hex's forest's consistency, a count);
        nothing where every game is consistent. It reads the values on the host: on demand,
        never in ``step``."""
        checks.check_state(self, state)

    def _value_problems(self, state: S) -> list[tuple[str, str, torch.Tensor]]:
        """The game's own value checks: ``(field, what is wrong, bool[B] where it is)`` each."""
        return []

    @abstractmethod
    def _to_scalar_states(self, state: S) -> list[Any]:
        """``to_scalar_states`` on a state whose structure is checked."""

    @abstractmethod
    def _from_scalar_states(self, states: Sequence[Any]) -> S:
        """``from_scalar_states``, unchecked: it may raise anything on a state of another game."""

    def check_actions(self, state: S, actions: Any) -> torch.Tensor:
        """``actions`` as a ``long[B]`` tensor on this device, or one sentence saying what is wrong."""
        batch = len(state.current_player)
        if not isinstance(actions, torch.Tensor):
            raise BoardgymError(
                f"actions must be a torch tensor of {batch} action numbers, not {type(actions).__name__}"
            )
        if actions.shape != (batch,):
            raise BoardgymError(
                f"actions have shape {tuple(actions.shape)}; the batch holds {batch} games: give ({batch},)"
            )
        if actions.dtype.is_floating_point or actions.dtype.is_complex or actions.dtype == torch.bool:
            raise BoardgymError(f"actions are {actions.dtype}; give whole numbers (torch.long)")
        if actions.device != self.device:
            raise BoardgymError(f"actions are on {actions.device}, the batch on {self.device}: move them with .to()")
        return actions.long()

    def check_mask(self, state: S, mask: Any, name: str) -> torch.Tensor:
        """``mask`` as a ``bool[B]`` on this device, or one sentence."""
        batch = len(state.current_player)
        if not isinstance(mask, torch.Tensor) or mask.shape != (batch,) or mask.dtype != torch.bool:
            raise BoardgymError(f"{name} must be a bool tensor of {batch} values, one per game")
        if mask.device != self.device:
            raise BoardgymError(f"{name} is on {mask.device}, the batch on {self.device}: move it with .to()")
        return mask

    def _in_space(self, actions: torch.Tensor) -> torch.Tensor | None:
        """None where every action is in the action space (one look at their range where the
        rules look), else ``bool[B]``: which are (always a mask where they do not)."""
        if self._looks():
            low, high = torch.aminmax(actions)
            if low.item() >= 0 and high.item() < self.num_actions:
                return None
        return (actions >= 0) & (actions < self.num_actions)

    def _looks(self) -> bool:
        """Whether the rules may read a value on the host to skip work: not ``sync_free``, and
        not while ``torch.compile`` traces them."""
        return not self.sync_free and not torch.compiler.is_compiling()

    def _may_be_any(self, mask: torch.Tensor) -> bool:
        """Whether ``mask`` may hold a true: looked at where the rules look (cheap on a CPU),
        assumed where they do not."""
        if not self._looks():
            return True
        return bool(mask.numpy().any()) if mask.device.type == "cpu" else bool(mask.any())

    def _every(self, values: torch.Tensor) -> bool:
        """Whether every one of ``values`` is true (non-zero): looked at where the rules look,
        not assumed where they do not."""
        if not self._looks():
            return False
        return bool(values.numpy().all()) if values.device.type == "cpu" else bool(values.all())

    # -- what each game writes -------------------------------------------------------------------
    @abstractmethod
    def _start(self, batch: int, generator: torch.Generator | None) -> S:
        """``batch`` games at their start, every field filled (``common`` helps)."""

    def _step(self, state: S, actions: torch.Tensor, in_space: torch.Tensor | None, where: torch.Tensor | None) -> S:
        """The games where ``where`` (all where it is None) play their actions, the finished
        games left as they are: the state after (``ended`` and ``rewards`` set, no reset).
        ``in_space``: which actions are in the action space (all where it is None); the others
        are illegal. This is the general case, over ``_play`` and ``_move``; a game may do it all
        in fewer operations."""
        live = ~(state.terminated | state.truncated) if self.truncates else ~state.terminated
        may = live if where is None else live & where
        if in_space is not None:
            may = may & in_space
            actions = actions.clamp(0, self.num_actions - 1)
        played, winner, moved = self._play(state, actions, may)
        # a row of REWARDS: no winner, player 0 or 1 won, player 0 or 1 played an illegal action
        outcome, terminated = winner + 1, played.terminated
        illegal = live & ~moved if where is None else live & where & ~moved
        if self._may_be_any(illegal):  # rare: no cost when every action is legal
            outcome = torch.where(illegal, 3 + state.current_player, outcome)
            terminated = terminated | illegal
        ended = ((terminated | played.truncated) if self.truncates else terminated) & live
        after: S = played._replace(
            terminated=terminated,
            ended=ended,
            rewards=self.rewards_of(outcome),
            steps=state.steps + moved,
        )
        return after

    def _play(self, state: S, actions: torch.Tensor, may: torch.Tensor) -> tuple[S, torch.Tensor, torch.Tensor]:
        """The games where ``may`` play ``actions`` (in the action space) where they are legal:
        ``_move``'s state and winner, and which games moved. A game may override it to test
        legality and move in one pass."""
        moving = may & self.is_legal(state, actions)
        played, winner = self._move(state, actions, moving)
        return played, winner, moving

    def _move(self, state: S, actions: torch.Tensor, moving: torch.Tensor) -> tuple[S, torch.Tensor]:
        """``actions`` (legal where ``moving``) played in the games where ``moving``, the other
        games unchanged: the boards, ``current_player``, ``terminated`` and ``truncated``;
        with the winner of each game this move won (``long[B]``: 0 or 1; -1 where nobody won:
        the game goes on, was drawn, or did not move). ``ended``, ``steps``, ``rewards`` and
        illegal actions are ``_step``'s. Every game that does not write its own ``_step``
        writes this."""
        raise NotImplementedError(f"{type(self).__name__} writes neither _move nor _step")

    @abstractmethod
    def _planes(self, state: S, player: torch.Tensor) -> torch.Tensor:
        """The observation planes from each game's ``player``."""

    # -- helpers -------------------------------------------------------------------------------------
    truncates = True
    """Whether a game can end by a move limit (``truncated``); a game that cannot says so and
    saves the test."""

    random_start = False
    """Whether ``_start`` draws (from its generator): a game whose start is fixed resets finished
    slots from one start state kept here, broadcast, without building a batch of them."""

    def _reset(self, state: S, ended: torch.Tensor, generator: torch.Generator | None) -> S:
        """``state`` with a new game in every slot where ``ended`` (its ``ended`` and ``rewards``
        kept: they tell how the old game ended). A game may do it faster."""
        if self.random_start:
            fresh = self._start(len(ended), generator)
        else:
            if self._start_state is None:
                self._start_state = self._start(1, None)
            fresh = self._start_state  # one game, broadcast
        replaced: S = where_rows(ended, fresh, state, keep=("ended", "rewards"))
        return replaced

    def rewards_of(self, outcome: torch.Tensor) -> torch.Tensor:
        """``float32[B, 2]``: the row of ``REWARDS`` of each game's ``outcome`` (``long[B]``)."""
        return self._reward_rows.index_select(0, outcome).view(torch.float32).view(-1, 2)

    def reset_fields(self, state: S, ended: torch.Tensor, names: Sequence[str]) -> dict[str, torch.Tensor]:
        """The fields ``names`` of ``state`` (one value per game) with their start value (0,
        false: player 0 to move) where ``ended``, for a game's own ``_reset``: whole numbers
        and flags by one ``&`` each with the games kept (cheaper than ``where``)."""
        kept = ~ended
        masks: dict[torch.dtype, torch.Tensor] = {torch.bool: kept}
        fields = {}
        for name in names:
            value = getattr(state, name)
            if value.dtype not in masks:  # all ones where kept, zeros where ended
                masks[value.dtype] = kept.to(value.dtype).neg_()
            fields[name] = value & masks[value.dtype]
        return fields

    def common(self, batch: int) -> dict[str, torch.Tensor]:
        """The common fields of ``batch`` games at their start, player 0 to move."""
        device = self.device
        return {
            "current_player": torch.zeros(batch, dtype=torch.long, device=device),
            "terminated": torch.zeros(batch, dtype=torch.bool, device=device),
            "truncated": torch.zeros(batch, dtype=torch.bool, device=device),
            "ended": torch.zeros(batch, dtype=torch.bool, device=device),
            "rewards": torch.zeros(batch, 2, dtype=torch.float32, device=device),
            "steps": torch.zeros(batch, dtype=torch.long, device=device),
        }

    def tensor(self, values: Any, dtype: torch.dtype = torch.long) -> torch.Tensor:
        """A tensor on this device (a table of the scalar rules' geometry, say)."""
        return torch.as_tensor(values, dtype=dtype, device=self.device)

    def _check_generator(self, generator: torch.Generator | None) -> None:
        if generator is not None and torch.device(generator.device).type != self.device.type:
            raise BoardgymError(f"the generator is on {generator.device}, the batch on {self.device}: make it there")


def _checking(method: Callable[..., T]) -> Callable[..., T]:
    """``method(self, state, ...)`` after ``self.check_structure(state)`` (see ``__init_subclass__``)."""

    @functools.wraps(method)
    def checked(self: BatchedGame[Any], state: Any, *args: Any, **kwargs: Any) -> T:
        if state is not self._made or torch.compiler.is_compiling():
            self.check_structure(state)
        return method(self, state, *args, **kwargs)

    checked.checks_structure = True  # type: ignore[attr-defined]
    return checked


def resolve_device(device: str | torch.device, option: str = "device") -> torch.device:
    """``cpu``, ``cuda``, ``cuda:N`` (or ``auto``: CUDA when available), checked: one sentence
    for a name torch does not know or a GPU that is not there. ``option`` names the setting in
    the sentence (``--device``; ending in ``=``, a spec's key: ``alphazero device=``)."""
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    shown = f"{option}{str(device)!r}" if option.endswith("=") else f"{option} {str(device)!r}"
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError):
        raise BoardgymError(f"unknown {shown}; use auto, cpu or cuda (cuda:N for GPU N)") from None
    if resolved.type == "cuda":
        if not torch.cuda.is_available():
            raise BoardgymError(f"{shown} asked for but CUDA is not available here; use cpu or auto")
        if resolved.index is not None and resolved.index >= torch.cuda.device_count():
            raise BoardgymError(f"{shown}: this machine has {torch.cuda.device_count()} GPU(s)")
        if resolved.index is None:
            resolved = torch.device("cuda", torch.cuda.current_device())
    elif resolved.type != "cpu":
        raise BoardgymError(f"{shown}: boardgym runs on cpu or cuda")
    return resolved
