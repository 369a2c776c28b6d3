"""What a game is: the ``Game`` base class, and the optional capabilities a game may declare.

A ``Game`` is one pure rules object over immutable, hashable states. It never imports
gymnasium, pettingzoo or torch. Its methods are pure functions of their arguments, so search
can key dictionaries by state and never needs to undo a move. The environments
(``boardgym.envs.core``), the agents and the training scripts only ever talk to this API,
which is why adding a game touches none of them.

A new game subclasses ``Game``, sets ``name``, ``num_players``, ``num_actions`` and
``observation_shape``, and writes the eight abstract methods; the other methods have defaults
it may override (``legal_mask`` faster, ``parse_action`` friendlier, ``is_truncated`` for a move
limit...). That is enough for the AEC and gym envs and for the random, MCTS and minimax
agents.

Beyond that, a game may offer a capability that some agents use. Each capability is a named
``Protocol`` below; a game declares one by listing it among its bases and implementing its
methods (a class that only implements them matches too), and an agent asks with
``isinstance(game, HasFeatures)``, never by probing for attribute names:

- ``HasFeatures``: evaluation features for learned weights (``minimax:eval=features``,
  coevolution);
- ``HasSymmetries``: the board's symmetries, for AlphaZero's data augmentation;
- ``HasRandomPlayout``: a fast uniformly random playout, for MCTS's rollouts;
- ``HasPuzzleHeuristic`` and ``SearchablePuzzle``: what A* needs to solve a one-player puzzle
  well (a lower bound, the actions worth branching on, duplicate detection).

Geometry a heuristic reads (Hex's edges, neighbours and flood fill, Quixo's lines, Connect
Four's lines of four) is public on the rules object or its module, so no agent copies it.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any, Generic, NoReturn, Protocol, TypeVar, runtime_checkable

import numpy as np

from boardgym.types import Action, IllegalActionError, Mask, Planes, Player

S = TypeVar("S", bound=Hashable)
S_contra = TypeVar("S_contra", bound=Hashable, contravariant=True)  # the capabilities only take states


class Game(ABC, Generic[S]):
    """The rules of one game (with its parameters) over states of type ``S``.

    Subclasses set ``name`` (the registry name, e.g. ``"quixo"``), ``num_players`` (2, or 1
    for puzzles), ``num_actions`` (the size of the fixed, documented action space) and
    ``observation_shape``, and implement the abstract methods. Returns are per player: +1 a
    win, -1 a loss, 0 a draw (puzzles: their score).
    """

    name: str
    num_players: int = 2
    num_actions: int
    observation_shape: tuple[int, ...]

    # -- what every game writes -------------------------------------------------------------
    @abstractmethod
    def initial_state(self) -> S:
        """The state before the first move."""

    @abstractmethod
    def current_player(self, state: S) -> Player:
        """The player to move in ``state`` (the last mover's opponent once it is over)."""

    @abstractmethod
    def legal_actions(self, state: S) -> list[Action]:
        """The legal actions in ascending order; empty once the game is over."""

    @abstractmethod
    def apply(self, state: S, action: Action) -> S:
        """The state after ``action``; ``IllegalActionError`` (see ``check_legal``) if it is
        not legal. ``state`` itself is never changed. An ``action`` that is not an ``int`` goes
        through ``boardgym.types.as_action`` first (numpy integers become ``int``, anything
        else is refused), so no foreign type reaches the rules::

            if type(action) is not int:
                action = as_action(action)
        """

    @abstractmethod
    def is_terminal(self, state: S) -> bool:
        """Whether the game is over (by its rules or by a move limit)."""

    @abstractmethod
    def returns(self, state: S) -> tuple[float, ...]:
        """One return per player: +1 win, -1 loss, 0 draw or unfinished."""

    @abstractmethod
    def observation(self, state: S, player: Player) -> Planes:
        """float32 planes of ``observation_shape``, seen from ``player``'s side."""

    @abstractmethod
    def render(self, state: S) -> str:
        """A text board with coordinates, and who is to move or who won."""

    # -- defaults ---------------------------------------------------------------------------
    def legal_mask(self, state: S) -> Mask:
        """Boolean mask of shape ``(num_actions,)``, True on the legal actions."""
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.legal_actions(state)] = True
        return mask

    def is_truncated(self, state: S) -> bool:
        """True when the game ended by a move limit rather than by its rules (a draw)."""
        return False

    @property
    def solvable_by_search(self) -> bool:
        """Whether exhaustive memoised search over this game (with these parameters) is
        cheap enough for the ``perfect`` agent: seconds and a few million states at most."""
        return False

    def action_to_str(self, state: S, action: Action) -> str:
        """How a person writes ``action`` (what ``parse_action`` reads back)."""
        return str(action)

    def parse_action(self, state: S, text: str) -> Action:
        """Read a move typed by a person; raises ``IllegalActionError`` with the reason."""
        text = text.strip()
        for action in self.legal_actions(state):
            if self.action_to_str(state, action).lower() == text.lower():
                return action
        try:
            action = int(text)
        except ValueError:
            raise IllegalActionError(
                f"cannot read move {text!r}; type one of: {self.legal_moves_text(state)}"
            ) from None
        self.check_legal(state, action)
        return action

    def check_legal(self, state: S, action: Action) -> None:
        """Raise ``IllegalActionError`` naming ``action`` unless it is legal in ``state``."""
        if self.is_terminal(state):
            raise IllegalActionError(f"action {action!r}: the game is already over")
        if not isinstance(action, (int, np.integer)) or not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"action {action!r} is outside the action space 0..{self.num_actions - 1} of {self.name}"
            )
        if action not in self.legal_actions(state):
            raise IllegalActionError(
                f"action {action} ({self.action_to_str(state, action)}) is not legal here; "
                f"legal moves: {self.legal_moves_text(state)}"
            )

    def raise_illegal(self, state: S, action: Action) -> NoReturn:
        """Raise the ``IllegalActionError`` of ``check_legal``: for ``apply`` once it has found
        ``action`` illegal by its own faster test."""
        self.check_legal(state, action)
        raise IllegalActionError(f"action {action!r} is not legal here; legal moves: {self.legal_moves_text(state)}")

    def legal_moves_text(self, state: S) -> str:
        """The legal moves as a person writes them, comma separated."""
        return ", ".join(self.action_to_str(state, a) for a in self.legal_actions(state))

    def board_grid(self, state: S) -> np.ndarray | None:
        """Optional (rows, columns) int grid, 0 empty and p+1 for player p's piece; the
        env draws it for ``render_mode="rgb_array"``. ``None`` where no picture helps."""
        return None

    def params(self) -> dict[str, Any]:
        """The constructor parameters, so ``make_game(game.name, **game.params())`` rebuilds it."""
        return {}

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({params})"


GameBase = Game
"""The former name of ``Game``'s defaults; kept so that existing subclasses keep working."""


def win_loss_returns(winner: int) -> tuple[float, float]:
    """``returns`` of a two-player game won, lost or drawn: ``(1, -1)`` when ``winner`` is
    player 0, ``(-1, 1)`` when it is player 1, ``(0, 0)`` for anything else (a draw, or a game
    not over)."""
    if winner == 0:
        return (1.0, -1.0)
    if winner == 1:
        return (-1.0, 1.0)
    return (0.0, 0.0)


def generic_playout(game: Game[S], state: S, player: Player, rng: random.Random) -> float:
    """Uniformly random legal moves from ``state`` to the end; the return for ``player``.

    This is the reference a game's own ``HasRandomPlayout.random_playout`` must match in
    distribution. One draw per move from ``rng`` (the standard library's generator costs a
    fraction of a numpy call per draw)."""
    draw = rng.random
    is_terminal, legal_actions, apply = game.is_terminal, game.legal_actions, game.apply
    while not is_terminal(state):
        legal = legal_actions(state)
        state = apply(state, legal[int(draw() * len(legal))])
    return game.returns(state)[player]


# -- optional capabilities ----------------------------------------------------------------------


@runtime_checkable
class HasFeatures(Protocol[S_contra]):
    """Evaluation features of a position, for evaluations whose weights are learned.

    ``features(state, player)`` is a fixed-length float32 vector describing ``state`` from
    ``player``'s side; ``feature_weights`` has one weight per feature and makes a sensible
    hand-made evaluation out of them (the player's features count for, the opponent's
    against). ``minimax:eval=features`` plays ``weights . features``; ``boardgym train
    coevolve`` evolves the weights.
    """

    feature_weights: tuple[float, ...]

    @abstractmethod
    def features(self, state: S_contra, player: Player) -> np.ndarray: ...


@runtime_checkable
class HasSymmetries(Protocol[S_contra]):
    """The symmetries of the rules, for data augmentation (AlphaZero's replay buffer).

    ``symmetries(state, policy)`` is, for each symmetry (the identity first), the observation
    planes of the image of ``state`` for the player to move and ``policy`` (any per-action
    array) moved along with it. ``boardgym.games.symmetry`` builds it from the images of
    the state and of the actions.
    """

    @abstractmethod
    def symmetries(self, state: S_contra, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]: ...


@runtime_checkable
class HasSymmetricStates(Protocol[S]):
    """The symmetries as images: ``symmetric_states(state)`` is, for each symmetry (the identity
    first), the image of ``state`` and ``actions`` (an int array: ``actions[a]`` is the image of
    action ``a``), from which ``boardgym.games.symmetry.augment`` makes ``symmetries``. Where a
    game offers it, the replay buffer moves the policy and the legal mask with one set of
    images instead of asking ``symmetries`` twice."""

    @abstractmethod
    def symmetric_states(self, state: S) -> list[tuple[S, np.ndarray]]: ...


@runtime_checkable
class HasRandomPlayout(Protocol[S_contra]):
    """A fast uniformly random playout, for the rollouts of Monte Carlo tree search.

    ``random_playout(state, player, rng)`` plays from ``state`` to the end and returns the
    result for ``player``, with exactly the outcome distribution of ``generic_playout`` (each
    move drawn uniformly among the legal ones), only faster: a game can skip building a state
    per move, or sample the whole rest of the game at once. All randomness comes from
    ``rng``. A game whose shortcut holds only for some parameters or states falls back to
    ``generic_playout`` for the others.
    """

    @abstractmethod
    def random_playout(self, state: S_contra, player: Player, rng: random.Random) -> float: ...


@runtime_checkable
class HasPuzzleHeuristic(Protocol[S_contra]):
    """A lower bound for A* on a one-player puzzle in which every action costs 1.

    ``heuristic(state)`` never exceeds the number of actions still needed to finish from
    ``state`` (admissible) and drops by at most 1 per action (consistent), so A*'s first
    solution is optimal and each state is expanded once.
    """

    @abstractmethod
    def heuristic(self, state: S_contra) -> int: ...


@runtime_checkable
class SearchablePuzzle(HasPuzzleHeuristic[S_contra], Protocol[S_contra]):
    """Everything A* (``boardgym.solve.astar``) can use beyond the heuristic:

    - ``search_actions(state)``: the actions worth branching on, a subset of the legal ones
      that keeps an optimal solution reachable;
    - ``search_key(state)``: states with equal keys need the same actions from there on, so
      only the cheapest path to each key is kept;
    - ``greedy_action(state)``: a quick good action, to finish a search out of budget.
    """

    @abstractmethod
    def search_actions(self, state: S_contra) -> Sequence[Action]: ...

    @abstractmethod
    def search_key(self, state: S_contra) -> Hashable: ...

    @abstractmethod
    def greedy_action(self, state: S_contra) -> Action: ...


__all__ = [
    "Game",
    "GameBase",
    "HasFeatures",
    "HasPuzzleHeuristic",
    "HasRandomPlayout",
    "HasSymmetries",
    "SearchablePuzzle",
    "generic_playout",
]
