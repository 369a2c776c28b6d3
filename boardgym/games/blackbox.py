"""The black-box bit-string problem (a sliced, deceptive OneMax): maximise a fitness over genomes of bits, counting every call.

Instance ``a`` (the reports used 1, 2, 5 and 10) splits the loci into ``a`` interleaved
slices, slice ``s`` holding loci ``s, s + a, s + 2a, ...``, and counts the ones in each. With
the counts sorted in descending order ``c0 >= c1 >= ...``, the value is the sum of the counts
equal to ``c0`` minus ``count_k * 0.1 ** (k + 1)`` summed over the remaining counts (those
below ``c0``, in descending order, indexed ``k = 0, 1, ...``); fitness is value divided by
the genome length, so when ``a`` divides the genome length (as 1, 2, 5 and 10 divide 1000)
the all-ones genome scores 1.0, the maximum. (Otherwise the slices differ in size and the
best genome leaves the longer slices one short.) For ``a = 1`` this is OneMax; for
larger ``a`` it is deceptive: in a slice that is not the fullest, every extra one costs a
little until the slice catches up with the fullest.

- ``fitness(genome, instance)``: the pure function.
- ``BlackBoxProblem(instance)``: the function behind a counter, ``problem.calls``; the
  optimisers in ``boardgym.solve.blackbox`` see only this.
- ``BlackBox``: the same problem as a one-player ``Game`` that sets one locus per action
  (action 0 or 1, ``genome_length`` actions), whose return is the finished genome's
  fitness. The Gymnasium env ``boardgym/BlackBox-v0`` instead takes a whole genome per step
  (``boardgym.envs.blackbox_env``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from boardgym.game import Game
from boardgym.types import Action, BoardgymError, IllegalActionError, Planes, Player, as_action

GENOME_LENGTH = 1000
MAX_GENOME_LENGTH = 1_000_000
INSTANCES = (1, 2, 5, 10)


def fitness(genome: Sequence[int] | np.ndarray, instance: int) -> float:
    """The fitness of ``genome`` (bits, any truthy value counts as 1) for instance ``a``."""
    bits = np.asarray(genome)
    return _fitness(bits, np.arange(bits.size) % instance, instance)


def _fitness(bits: np.ndarray, slice_of: np.ndarray, instance: int) -> float:
    counts = sorted(
        (int(c) for c in np.bincount(slice_of, weights=bits.astype(bool), minlength=instance)), reverse=True
    )
    top = counts[0]
    below = [c for c in counts if c < top]
    value = sum(c for c in counts if c == top) - sum(c * 0.1 ** (k + 1) for k, c in enumerate(below))
    return value / bits.size


class BlackBoxProblem:
    """``problem(genome) -> fitness``, counting every call in ``problem.calls``."""

    def __init__(self, instance: int = 10, genome_length: int = GENOME_LENGTH) -> None:
        self.instance = check_instance(instance, genome_length)
        self.genome_length = int(genome_length)
        self.calls = 0
        self._slice_of = np.arange(self.genome_length) % self.instance

    def __call__(self, genome: Sequence[int] | np.ndarray) -> float:
        bits = np.asarray(genome)
        if bits.shape != (self.genome_length,):
            raise BoardgymError(f"a black-box genome must hold {self.genome_length} bits; got shape {bits.shape}")
        self.calls += 1
        return _fitness(bits, self._slice_of, self.instance)

    def __repr__(self) -> str:
        return f"BlackBoxProblem(instance={self.instance}, genome_length={self.genome_length}, calls={self.calls})"


class BlackBoxState(NamedTuple):
    length: int  # loci set so far
    bits: int  # bit i is locus i


class BlackBox(Game[BlackBoxState]):
    """The black-box problem as a one-player game: set the loci one at a time."""

    name = "blackbox"
    num_players = 1
    num_actions = 2

    def __init__(self, instance: int = 10, genome_length: int = GENOME_LENGTH) -> None:
        self.instance = check_instance(instance, genome_length)
        self.genome_length = int(genome_length)
        self.observation_shape = (2, self.genome_length)

    def params(self) -> dict[str, Any]:
        return {"instance": self.instance, "genome_length": self.genome_length}

    def initial_state(self) -> BlackBoxState:
        return BlackBoxState(0, 0)

    def current_player(self, state: BlackBoxState) -> Player:
        return 0

    def legal_actions(self, state: BlackBoxState) -> list[Action]:
        return [] if state.length >= self.genome_length else [0, 1]

    def apply(self, state: BlackBoxState, action: Action) -> BlackBoxState:
        if type(action) is not int:
            action = as_action(action)
        if action not in (0, 1) or state.length >= self.genome_length:
            self.raise_illegal(state, action)
        return BlackBoxState(state.length + 1, state.bits | int(action) << state.length)

    def is_terminal(self, state: BlackBoxState) -> bool:
        return state.length >= self.genome_length

    def returns(self, state: BlackBoxState) -> tuple[float]:
        return (fitness(self.genome(state), self.instance),) if self.is_terminal(state) else (0.0,)

    def genome(self, state: BlackBoxState) -> np.ndarray:
        """The loci set so far as a uint8 array of ``genome_length`` bits (unset loci are 0)."""
        raw = state.bits.to_bytes((self.genome_length + 7) // 8, "little")
        return np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")[: self.genome_length]

    def observation(self, state: BlackBoxState, player: Player) -> Planes:
        planes = np.zeros(self.observation_shape, dtype=np.float32)
        planes[0] = self.genome(state)
        planes[1, : state.length] = 1.0
        return planes

    def render(self, state: BlackBoxState) -> str:
        genome = self.genome(state)
        text = "".join(str(int(b)) for b in genome[: state.length]) + "_" * (self.genome_length - state.length)
        lines = [text[i : i + 100] for i in range(0, self.genome_length, 100)]
        if self.is_terminal(state):
            lines.append(f"fitness {self.returns(state)[0]:.4f} (instance {self.instance})")
        else:
            lines.append(f"locus {state.length} of {self.genome_length} next; move = 0 or 1")
        return "\n".join(lines)

    def parse_action(self, state: BlackBoxState, text: str) -> Action:
        if text.strip() not in ("0", "1"):
            raise IllegalActionError(f"cannot read move {text!r}; type 0 or 1 for locus {state.length}")
        action = int(text.strip())
        self.check_legal(state, action)
        return action


def check_instance(instance: Any, genome_length: Any = GENOME_LENGTH) -> int:
    """The instance number as an int, or a clear error."""
    if not isinstance(genome_length, (int, np.integer)) or isinstance(genome_length, bool) or genome_length < 1:
        raise BoardgymError(f"black-box genome_length={genome_length!r} must be a positive integer, e.g. 1000")
    if genome_length > MAX_GENOME_LENGTH:
        raise BoardgymError(f"black-box genome_length={genome_length!r} is too large: at most {MAX_GENOME_LENGTH:,}")
    if not isinstance(instance, (int, np.integer)) or isinstance(instance, bool) or not 1 <= instance <= genome_length:
        raise BoardgymError(
            f"black-box instance={instance!r} must be an integer from 1 to the genome length; "
            f"the reports used {', '.join(map(str, INSTANCES))}"
        )
    return int(instance)
