"""How the batched search runs on its device, beside what it computes (``batched_tree``,
``batched_roots``): one ``DeviceTactics`` object holds every choice that changes the cost of a
search but not its result.

- **early exit**: a walk stops once every game has reached its leaf (a look at the batch:
  cheap on a CPU, a wait on a GPU, which walks on with the finished games masked);
- **evaluate all**: every leaf of a simulation goes to the evaluator, new or not (on a GPU,
  where picking out the new ones would wait for it), instead of the new ones only;
- **cache**: on a CPU, the evaluations of a number of positions remembered across simulations
  and searches (a table of tensors indexed by a 64-bit hash of each position's planes and
  legal moves, a new position overwriting the one in its slot);
- **depth reader**: how the walk learns its length, the deepest tree's depth (read at once, or
  on a GPU copied back without waiting: ``LaggedDepthReader``);
- **capture**: on CUDA, each simulation replayed as a CUDA graph, one graph per walk length,
  captured over the search's tree, which is kept from search to search at the same batch.

A simulation under capture makes no host read and no data-dependent shape (no early exit,
every leaf evaluated, no cache); the CPU's tactics read the batch where that is cheaper.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import torch

from boardgym.agents.batched_tree import Tree

BatchEvaluatorFn = Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]


@runtime_checkable
class CountsCalls(Protocol):
    """An evaluator that counts its calls and positions (``NetworkBatchEvaluator``): a recording
    runs its Python without evaluating and a replay evaluates without running its Python, so
    the tactics keep its counts right."""

    calls: int
    positions: int


class DeviceTactics:
    """The device tactics of one ``BatchedMCTS`` (module doc); the defaults are the device's
    fastest: on a CPU, early exit, only the new leaves evaluated, the depth read at once, the
    ``cache`` (positions, rounded up to a power of two; 0: none); on CUDA, the walk to the
    lagged depth, every leaf evaluated, and with ``capture`` (None: on where CUDA is) every
    simulation a CUDA graph."""

    def __init__(self, device: torch.device, num_actions: int, *, cache: int = 0, capture: bool | None = None) -> None:
        cpu = device.type == "cpu"
        self.device = device
        self.early_exit = cpu
        self.evaluate_all = not cpu
        self.depth_reader: DepthReader = DepthReader() if cpu else LaggedDepthReader()
        on = device.type == "cuda" if capture is None else capture and device.type == "cuda"
        self.recorder: Recorder | None = CudaGraphs() if on else None
        """How a simulation is recorded for replay (``CudaGraphs``), or None: run every time."""
        self.cache = EvaluationCache(cache, num_actions) if cache and cpu else None
        self.calls = 0  # evaluator calls
        self.evaluations = 0  # positions sent to the evaluator, roots included
        self._graphs: dict[int, Callable[[], None]] = {}  # walk length -> its recording's replay, over self._tree
        self._tree: Tree | None = None
        self._recorded_with: Any = None  # the evaluator of the recordings

    @property
    def sync_free(self) -> bool:
        """Whether a simulation makes no host read: no early exit, every leaf evaluated (so no
        cache), the rules stepped without their looks at the batch (``step_unchecked``)."""
        return not self.early_exit and self.evaluate_all

    @property
    def capture(self) -> bool:
        """Whether simulations are recorded and replayed (CUDA graphs on CUDA)."""
        return self.recorder is not None

    @property
    def cache_hits(self) -> int:
        return self.cache.hits if self.cache is not None else 0

    # -- the tree ---------------------------------------------------------------------------------
    def tree(self, make: Callable[[], Tree], batch: int, nodes: int) -> Tree:
        """The search's tree: the one kept (its graphs captured over it) when it fits, else a
        new one from ``make``."""
        kept = self._tree
        if kept is not None and kept.batch == batch and kept.nodes == nodes:
            return kept
        self._graphs.clear()
        tree = make()
        if self.recorder is not None:
            self._tree = tree
        return tree

    # -- a simulation -----------------------------------------------------------------------------
    def simulate(
        self, simulate: Callable[[Tree, int, bool], Tree], tree: Tree, simulation: int, evaluator: Any
    ) -> Tree:
        """Simulation ``simulation`` of the search over ``tree``: ``simulate(tree, levels,
        early_exit)`` run, or its graph replayed, the walk ``levels`` long (the depth reader's
        bound plus one)."""
        levels = self.depth_reader.bound(simulation) + 1
        if evaluator is not self._recorded_with:  # the recordings call the evaluator they were made with
            self._graphs.clear()
            self._recorded_with = evaluator
        if self.recorder is not None and tree is self._tree:
            replay = self._graphs.get(levels)
            if replay is not None:
                replay()
                self._counted(evaluator, tree.batch)
            else:  # run it (the warm-up), then record it for the next simulations of this length
                simulate(tree, levels, False)
                self._record(self.recorder, simulate, tree, levels, evaluator)
        else:
            simulate(tree, levels, self.early_exit)
        self.depth_reader.push(tree.deepest, simulation)
        return tree

    def _record(
        self, recorder: Recorder, simulate: Callable[[Tree, int, bool], Tree], tree: Tree, levels: int, evaluator: Any
    ) -> None:
        """Record ``simulate`` at this walk length over ``tree`` (a recording runs nothing: the tree
        is unchanged). A simulation that cannot be recorded (an operation that waits for the
        device) turns capture off with one warning; the search goes on eagerly."""
        counts = self.calls, self.evaluations
        counted = isinstance(evaluator, CountsCalls)
        its_counts = (evaluator.calls, evaluator.positions) if counted else (0, 0)
        try:
            self._graphs[levels] = recorder(lambda: simulate(tree, levels, False))
        except RuntimeError as error:
            warnings.warn(
                f"the batched search runs eagerly: a simulation could not be captured ({error})", stacklevel=3
            )
            self.recorder, self._tree = None, None
            self._graphs.clear()
        finally:  # the recording evaluated nothing
            self.calls, self.evaluations = counts
            if counted:
                evaluator.calls, evaluator.positions = its_counts

    def _counted(self, evaluator: Any, batch: int) -> None:
        """A replay's evaluator call, counted (its Python did not run)."""
        self.calls += 1
        self.evaluations += batch
        if isinstance(evaluator, CountsCalls):
            evaluator.calls += 1
            evaluator.positions += batch

    # -- the evaluator ----------------------------------------------------------------------------
    def evaluate(
        self, evaluator: BatchEvaluatorFn, planes: torch.Tensor, legal: torch.Tensor, which: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Priors (float32 ``[B, A]``) and values (``[B]``) of the positions whose ``planes`` and
        ``legal`` moves are given: those where ``which`` (the others zero), or all of them with
        ``evaluate_all`` or ``which`` None. Only the first way reads the batch."""
        if which is None or self.evaluate_all:
            self.calls += 1
            self.evaluations += len(legal)
            priors, values = evaluator(planes, legal)
            return priors.float(), values.float()
        priors = torch.zeros(legal.shape, dtype=torch.float32, device=legal.device)
        values = torch.zeros(len(legal), dtype=torch.float32, device=legal.device)
        cache = self.cache
        keys = slots = None
        if cache is not None:
            which, slots, keys = cache.fill(planes, legal, which, priors, values)
        rows = which.nonzero().squeeze(1)
        if not len(rows):
            return priors, values
        copies = None
        if keys is not None:  # a position twice in the call is evaluated once
            unique, copies = torch.unique(keys.index_select(0, rows), return_inverse=True)
            if len(unique) < len(rows):
                first = torch.full((len(unique),), len(rows), dtype=torch.long)
                first.scatter_reduce_(0, copies, torch.arange(len(rows)), "amin")
                everyone, rows = rows, rows.index_select(0, first)
            else:
                copies = None
        some_priors, some_values = evaluator(planes.index_select(0, rows), legal.index_select(0, rows))
        some_priors, some_values = some_priors.float(), some_values.float()
        self.calls += 1
        self.evaluations += len(rows)
        if cache is not None and keys is not None and slots is not None:
            cache.store(slots.index_select(0, rows), keys.index_select(0, rows), some_priors, some_values)
        if copies is not None:  # back to every position of the call
            assert cache is not None
            cache.hits += len(copies) - len(rows)
            rows = everyone
            some_priors, some_values = some_priors.index_select(0, copies), some_values.index_select(0, copies)
        priors[rows] = some_priors
        values[rows] = some_values
        return priors, values


class EvaluationCache:
    """``size`` positions' evaluations (rounded up to a power of two), by a 64-bit hash of each
    position's planes and legal moves; a new position overwrites the one in its slot. Keep it
    while the evaluator is the same. On a CPU only (it reads the batch)."""

    def __init__(self, size: int, num_actions: int) -> None:
        size = 1 << max(0, size - 1).bit_length()
        self.keys = torch.zeros(size, dtype=torch.long)
        self.priors = torch.zeros((size, num_actions), dtype=torch.float32)
        self.values = torch.zeros(size, dtype=torch.float32)
        self.hits = 0
        self._weights: torch.Tensor | None = None

    def fill(
        self, planes: torch.Tensor, legal: torch.Tensor, which: torch.Tensor, priors: torch.Tensor, values: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Fill ``priors`` and ``values`` where the cache knows the position; returns the
        positions of ``which`` still to evaluate, and every position's slot and key."""
        flat = torch.cat((planes.flatten(1).view(torch.int32).long(), legal.long()), 1)
        if self._weights is None or len(self._weights) != flat.shape[1]:
            generator = torch.Generator().manual_seed(0x5EED)
            self._weights = torch.randint(-(2**62), 2**62, (flat.shape[1],), generator=generator) | 1
        keys = (flat * self._weights).sum(1) | 1  # wrapping 64-bit arithmetic; never 0 (an empty slot)
        slots = (keys >> 32) & (len(self.keys) - 1)  # high bits: the low ones of a float plane are zeros
        hit = which & (self.keys.index_select(0, slots) == keys)
        if bool(hit.any()):
            rows = hit.nonzero().squeeze(1)
            at = slots.index_select(0, rows)
            priors[rows] = self.priors.index_select(0, at)
            values[rows] = self.values.index_select(0, at)
            self.hits += len(rows)
        return which & ~hit, slots, keys

    def clear(self) -> None:
        """Forget every position (the evaluator's weights changed)."""
        self.keys.zero_()

    def store(self, slots: torch.Tensor, keys: torch.Tensor, priors: torch.Tensor, values: torch.Tensor) -> None:
        self.keys[slots] = keys
        self.priors[slots] = priors
        self.values[slots] = values


class DepthReader:
    """The bound of the walk's length: the deepest node's depth, read after every simulation
    (``int()``: on a CPU the value is there; on a GPU the read would wait for all the work
    queued so far)."""

    def start(self) -> None:
        """A new search: its trees hold their roots only."""
        self._deepest = 0

    def push(self, deepest: torch.Tensor, simulation: int) -> None:
        """``deepest``: the depth of the deepest node once simulation ``simulation`` is done."""
        self._deepest = int(deepest)

    def bound(self, simulation: int) -> int:
        """At least the depth of the deepest node before simulation ``simulation``."""
        return self._deepest


class LaggedDepthReader(DepthReader):
    """``DepthReader`` without the wait, for a GPU: the depth is copied to pinned host memory
    without blocking and read once its copy has arrived (a CUDA event says so). Until then the
    bound grows by one a simulation, since a simulation deepens a tree by at most one level:
    a walk may take a level or two more than it needs (its finished games masked, as always on
    a GPU), and the GPU never waits for the host within a search."""

    def start(self) -> None:
        super().start()
        self._known_at = -1  # the simulation after which the depth read was exact
        self._pending: tuple[torch.Tensor, Any, int] | None = None
        self._host: torch.Tensor | None = None

    def push(self, deepest: torch.Tensor, simulation: int) -> None:
        if self._pending is not None:
            return  # one copy in flight at a time
        if self._host is None:
            self._host = torch.empty((), dtype=torch.long, pin_memory=deepest.device.type == "cuda")
        self._host.copy_(deepest, non_blocking=True)
        self._pending = (self._host, self._event(deepest.device), simulation)

    def bound(self, simulation: int) -> int:
        pending = self._pending
        if pending is not None and self._arrived(pending[1]):
            self._deepest, self._known_at = int(pending[0]), pending[2]
            self._pending = None
        return self._deepest + (simulation - 1 - self._known_at)

    @staticmethod
    def _event(device: torch.device) -> Any:
        if device.type != "cuda":
            return None  # the copy is already done
        event = torch.cuda.Event()
        event.record()
        return event

    def _arrived(self, event: Any) -> bool:
        """Whether the copy recorded by ``event`` is done (a look, no wait)."""
        return event is None or bool(event.query())


Recorder = Callable[[Callable[[], object]], Callable[[], None]]
"""Records a function (without running it) and returns what replays it."""


class CudaGraphs:
    """A ``Recorder``: each function captured as a CUDA graph (the capture runs no kernel), all
    of one search's graphs in one memory pool. They replay one after another on one stream and
    keep nothing alive in the pool (every result goes into the tree, allocated outside it), so
    their scratch memory can be the same: one simulation's worth, not one per walk length. The
    tensors a graph reads and writes must stay where they are while it is replayed."""

    def __init__(self) -> None:
        self._pool: Any = None

    def __call__(self, function: Callable[[], object]) -> Callable[[], None]:
        if self._pool is None:
            self._pool = torch.cuda.graph_pool_handle()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self._pool):
            function()
        return graph.replay


__all__: Any = (
    "CountsCalls",
    "DepthReader",
    "DeviceTactics",
    "EvaluationCache",
    "LaggedDepthReader",
    "CudaGraphs",
    "Recorder",
)
