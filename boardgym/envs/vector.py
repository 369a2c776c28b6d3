"""The native vector env: N games against an opponent inside, all stepped in one call on the
batched rules (``boardgym.batch``), on the CPU or a GPU; no subprocesses, no per-game Python.

::

    envs = gym.make_vec("boardgym/ConnectFour-v0", num_envs=4096, vectorization_mode="vector_entry_point",
                        opponent="random", device="cpu")
    observations, infos = envs.reset(seed=0)
    observations, rewards, terminations, truncations, infos = envs.step(actions)

What each env is, and what it returns, is what ``gym.make("boardgym/<Game>-v0")`` gives inside
``gym.vector.SyncVectorEnv`` (``boardgym.envs.single_agent``), so a loop written for one works
with the other:

- one seat is the learner, the other the opponent; ``seat`` 0, 1, or None: drawn per episode;
- observations are the rules' float32 planes from the learner's seat, ``[N, C, H, W]``;
- ``infos["action_mask"]`` (int8 ``[N, A]``, as ``action_masks()``) holds the learner's legal
  actions; all ones for an env whose episode has just ended (what follows is ignored);
- the reward is the learner's return (+1 / -1 / 0) when its game ends, 0 before; an illegal
  action ends the episode with -1 (``infos["illegal_action"]``);
- autoreset is Gymnasium's ``NEXT_STEP``: the step after an episode ended ignores that env's
  action and returns the first observation of its next episode, reward 0, not terminated;
- ``infos["seat"]``, and ``infos["opponent_action"]`` where the opponent moved, with the
  ``_key`` masks Gymnasium's vector envs put beside each info key.

The opponent is ``"random"`` (a uniformly random legal move, batched), a policy callable
``policy(observations, legal) -> actions`` (torch tensors on the env's device: the opponent's
planes ``[N, C, H, W]`` and legal mask ``bool[N, A]`` of the envs where it moves, its actions
``long[N]``; self-play plugs a network in here), or any other agent spec (``"mcts:
simulations=50"``), which plays through the scalar rules one env at a time: correct, not fast.
Numpy arrays come out by default; ``tensors=True`` returns torch tensors on ``device``.

When something goes wrong the env says so and never plays on a corrupted game:

- an opponent's move that is not legal (a policy's action out of the mask, or out of the
  action space) raises ``BoardgymError`` naming the env and the action, as the scalar env
  does; it is never played, and never leaves an episode over with an all-zero mask;
- a ``step``, ``reset`` or ``start_next_episodes`` that fails part-way (the opponent raised, or
  moved illegally) leaves some games moved and others not: the env then refuses every call but
  ``reset()`` and ``close()`` with a sentence saying which error it was, instead of playing the
  learner's next action for the opponent;
- ``reset(seed=)`` takes a whole number from 0 to 2**64 - 1 (or None) and refuses anything
  else (``1.5`` is not read as 1); ``action_masks()`` before ``reset()`` or after ``close()``
  refuses; ``num_envs`` is at most ``MAX_ENVS``, checked before any space is allocated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from boardgym.agents.base import Agent
from boardgym.agents.registry import make_agent
from boardgym.batch import BatchedGame, batched
from boardgym.envs.single_agent import learner_seat
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.types import BoardgymError

Policy = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
"""``policy(observations [N, C, H, W], legal bool[N, A]) -> actions long[N]``."""

MAX_REPLIES = 1000
"""Opponent moves in a row before the env gives up (a game that never hands the turn back)."""
MAX_ENVS = 1 << 20
"""The most envs one vector env holds (checked before Gymnasium's ``batch_space`` allocates
its bounds, hundreds of bytes an env); a GPU is busy long before."""


class BatchedVectorEnv(VectorEnv):
    """``num_envs`` games of ``game`` against ``opponent`` (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game: str | Game,
        num_envs: int = 1,
        *,
        opponent: str | Policy = "random",
        seat: int | str | None = None,
        device: str | torch.device = "cpu",
        tensors: bool = False,
        render_mode: str | None = None,
        **game_params: Any,
    ) -> None:
        if render_mode is not None:
            raise BoardgymError(
                f"render_mode={render_mode!r}: the native vector env does not render; render one game with gym.make"
            )
        self.game = make_game(game, **game_params) if isinstance(game, str) else game
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise BoardgymError(f"num_envs={num_envs!r} must be a whole number of envs, at least 1")
        if num_envs > MAX_ENVS:
            raise BoardgymError(
                f"num_envs={num_envs} is more than MAX_ENVS={MAX_ENVS} (boardgym.envs.vector); run several "
                "vector envs or fewer games at once"
            )
        num_envs = int(num_envs)
        self.rules: BatchedGame[Any] = batched(self.game, device=device)
        self.device = self.rules.device
        self.num_envs = num_envs
        self.tensors = bool(tensors)
        self.fixed_seat = learner_seat(seat)
        self.opponent = opponent
        self._agents: list[Agent] | None = None
        if isinstance(opponent, str) and opponent != "random":
            make_agent(opponent, self.game)  # a bad spec is refused now, not at the first step
        elif not isinstance(opponent, str) and not callable(opponent):
            raise BoardgymError(f"opponent={opponent!r} must be 'random', an agent spec or a policy callable")
        self.single_observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(int(np.random.SeedSequence().generate_state(1)[0]))
        self.state: Any = None
        self.closed = False
        self.broken: str | None = None  # why the last call failed part-way; refuse all but reset()
        self.seats = torch.zeros(num_envs, dtype=torch.long, device=self.device)
        self.finished = torch.zeros(num_envs, dtype=torch.bool, device=self.device)
        self._everywhere = torch.ones(num_envs, dtype=torch.bool, device=self.device)

    # -- the API -----------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        seed = check_seed(seed)
        if seed is not None:
            self.generator.manual_seed(seed)
            self._agents = None
        self.closed, self.broken = False, None
        with self._failing("reset()"):
            self.state = self.rules.init(self.num_envs, self.generator)
            self.seats = self._draw_seats(self.seats, self._everywhere)
            self.finished = torch.zeros_like(self.finished)
            info: dict[str, Any] = {}
            self._opponent_moves(info)
            self.rules.check_state(self.state)  # the values, at reset only: never in step
            return self._out(self._observations()), self._info(info)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        self._check_ready("step()")
        actions = self._actions(actions)
        with self._failing("step()"):
            return self._step(actions)

    def _step(self, actions: torch.Tensor) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        rules, restarting = self.rules, self.finished
        playing = ~restarting
        info: dict[str, Any] = {}
        if bool(restarting.any()):  # NEXT_STEP: these envs ignore their action and start over
            self.state = rules.restart(self.state, restarting, self.generator)
            self.seats = self._draw_seats(self.seats, restarting)
        safe = actions.clamp(0, self.game.num_actions - 1)
        illegal = playing & ~(rules.is_legal(self.state, safe) & (safe == actions))
        self.state = rules.step(self.state, actions, where=playing)
        rewards = self.state.rewards.gather(1, self.seats.unsqueeze(1)).squeeze(1)
        rewards = rewards + self._opponent_moves(info)
        over = (self.state.terminated | self.state.truncated) & playing
        truncated = self.state.truncated & playing
        self.finished = over
        if bool(illegal.any()):
            info["illegal_action"], info["_illegal_action"] = self._out(actions), self._out(illegal)
        return (
            self._out(self._observations()),
            self._out(rewards) if self.tensors else rewards.double().cpu().numpy(),
            self._out(over & ~truncated),
            self._out(truncated),
            self._info(info),
        )

    def start_next_episodes(self) -> tuple[Any, dict[str, Any]]:
        """Start the next episode now in every env whose episode ended at the last step (new
        seat, the opponent's opening moves), instead of at the next ``step``: the observations
        and infos of all envs after it. For loops that reset in the same step (Stable-Baselines3's
        ``VecEnv``, ``boardgym.envs.sb3_vec``)."""
        self._check_ready("start_next_episodes()")
        info: dict[str, Any] = {}
        with self._failing("start_next_episodes()"):
            if bool(self.finished.any()):
                self.state = self.rules.restart(self.state, self.finished, self.generator)
                self.seats = self._draw_seats(self.seats, self.finished)
                self.finished = torch.zeros_like(self.finished)
                self._opponent_moves(info)
            return self._out(self._observations()), self._info(info)

    def action_masks(self) -> Any:
        """The learner's legal actions, int8 ``[N, A]``; all ones where an episode has just ended."""
        self._check_ready("action_masks()")
        masks = self.rules.legal_mask(self.state) | self.finished.unsqueeze(1)
        return self._out(masks.to(torch.int8))

    def close(self, **kwargs: Any) -> None:
        self.state = None
        self.closed = True

    def _check_ready(self, call: str) -> None:
        """One sentence when ``call`` cannot run: closed, never reset, or broken by a failure."""
        if self.closed:
            raise BoardgymError(f"{call} on a closed vector env; make a new one, or call reset() to reopen it")
        if self.state is None:
            raise BoardgymError(f"call reset() before {call}")
        if self.broken is not None:
            raise BoardgymError(
                f"{call} refused: an earlier call failed part-way ({self.broken}), leaving some games moved and "
                "others not; call reset() to start every game again"
            )

    @contextmanager
    def _failing(self, call: str) -> Iterator[None]:
        """Mark the env broken when ``call`` raises inside, so no game is played on half-moved."""
        try:
            yield
        except BaseException as error:
            first = (str(error).strip().splitlines() or [""])[0][:160]
            self.broken = (
                f"{call} raised {type(error).__name__}: {first}" if first else f"{call} raised {type(error).__name__}"
            )
            raise

    # -- inside --------------------------------------------------------------------------------------
    def _opponent_moves(self, info: dict[str, Any]) -> torch.Tensor:
        """The opponent moves wherever it is to move, until each game is the learner's again
        or over; returns the learner's rewards of those moves."""
        rules = self.rules
        rewards = torch.zeros(self.num_envs, dtype=torch.float32, device=self.device)
        last = torch.zeros(self.num_envs, dtype=torch.long, device=self.device)
        moved = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        for _ in range(MAX_REPLIES):
            state = self.state
            to_move = ~(state.terminated | state.truncated) & (state.current_player != self.seats)
            if not bool(to_move.any()):
                break
            actions = self._opponent_actions(state, to_move)
            self.state = rules.step(state, actions, where=to_move)
            rewards += self.state.rewards.gather(1, self.seats.unsqueeze(1)).squeeze(1)
            last = torch.where(to_move, actions, last)
            moved |= to_move
        else:
            raise BoardgymError(f"the opponent moved {MAX_REPLIES} times in a row without handing the turn back")
        if bool(moved.any()):
            info["opponent_action"], info["_opponent_action"] = self._out(last), self._out(moved)
        return rewards

    def _opponent_actions(self, state: Any, to_move: torch.Tensor) -> torch.Tensor:
        rules = self.rules
        if self.opponent == "random":
            return rules.random_actions(state, self.generator)
        if callable(self.opponent):
            opponent_seat = 1 - self.seats
            legal = rules.legal_mask(state)
            actions = self.opponent(rules.observation(state, opponent_seat), legal)
            try:
                actions = rules.check_actions(state, actions)
            except BoardgymError as error:
                raise BoardgymError(f"the opponent policy's actions are wrong: {error}") from None
            safe = actions.clamp(0, self.game.num_actions - 1)
            illegal = to_move & ~(legal.gather(1, safe.unsqueeze(1)).squeeze(1) & (safe == actions))
            if bool(illegal.any()):  # the scalar env raises here too: never a silent lost game
                index = int(torch.nonzero(illegal)[0, 0])
                raise BoardgymError(
                    f"the opponent policy chose action {int(actions[index])} in env {index}, which is not legal "
                    f"there ({int(illegal.sum())} env(s) in all); return an action whose legal[i, action] is True"
                )
            return actions
        return self._agent_actions(state, to_move)

    def _agent_actions(self, state: Any, to_move: torch.Tensor) -> torch.Tensor:
        """An agent spec's moves through the scalar rules, one env at a time."""
        if self._agents is None:
            seeds = torch.randint(0, 2**62, (self.num_envs,), generator=self.generator, device=self.device)
            self._agents = [make_agent(str(self.opponent), self.game, seed=int(s)) for s in seeds.tolist()]
        actions = [0] * self.num_envs
        scalar = self.rules.to_scalar_states(state)
        for index in torch.nonzero(to_move).flatten().tolist():
            actions[index] = int(self._agents[index].act(self.game, scalar[index]))
        return torch.tensor(actions, dtype=torch.long, device=self.device)

    def _draw_seats(self, seats: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
        if self.fixed_seat is not None:
            return torch.full_like(seats, self.fixed_seat)
        drawn = torch.randint(0, 2, (self.num_envs,), generator=self.generator, device=self.device)
        return torch.where(where, drawn, seats)

    def _observations(self) -> torch.Tensor:
        return self.rules.observation(self.state, self.seats)

    def _actions(self, actions: Any) -> torch.Tensor:
        if isinstance(actions, torch.Tensor):
            tensor = actions.to(self.device)
        else:
            array = np.asarray(actions)
            if array.dtype.kind not in "iu":
                raise BoardgymError(
                    f"actions must be an integer array of action indices, not {array.dtype} (e.g. {array.ravel()[:3]})"
                )
            tensor = torch.as_tensor(array, device=self.device)
        if tensor.shape != (self.num_envs,):
            raise BoardgymError(f"actions have shape {tuple(tensor.shape)}; give one per env: ({self.num_envs},)")
        return self.rules.check_actions(self.state, tensor)

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        everywhere = self._out(self._everywhere)
        info["seat"], info["_seat"] = self._out(self.seats), everywhere
        info["action_mask"], info["_action_mask"] = self.action_masks(), everywhere
        return info

    def _out(self, values: torch.Tensor) -> Any:
        return values if self.tensors else values.cpu().numpy()


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int from 0 to 2**64 - 1 (what ``torch.Generator.manual_seed`` takes), or
    None; anything else (text, a float such as 1.5 or NaN, a number out of range) is one sentence."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise BoardgymError(f"seed={seed!r} must be a whole number from 0 to 2**64 - 1, or None")
    return int(seed)


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> gym.vector.VectorEnv:
    """The ``vector_entry_point`` of the gym ids: ``gym.make_vec(id, num_envs, vectorization_mode=
    "vector_entry_point", **kwargs)``."""
    return BatchedVectorEnv(num_envs=num_envs, **kwargs)
