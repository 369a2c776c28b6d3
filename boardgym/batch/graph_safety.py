"""Whether a piece of tensor code can run captured: no host read, no data-dependent shape.

A CUDA graph or a ``torch.compile(fullgraph=True)`` of the batched rules (or of a search over
them) holds only where the code never waits for the device to say what a value is: no
``.item()``, ``.tolist()``, ``.numpy()`` or ``bool(tensor)``, no ``nonzero``, no indexing by a
boolean mask, no copy to the CPU. Both checks here run on a CPU, so the tests prove it where
there is no GPU::

    from boardgym.batch.graph_safety import assert_no_sync, compile_fullgraph

    after = assert_no_sync(rules.step_unchecked, state, actions, auto_reset=True)
    compiled = compile_fullgraph(lambda s, a: rules.step_unchecked(s, a, auto_reset=True))
    assert_same(compiled(state, actions), after)

- ``syncs(fn, *args, **kwargs)`` runs ``fn`` and returns its result and the synchronising
  operations it made (``aten`` op names, and ``Tensor.numpy``/``Tensor.tolist``, which the
  dispatcher never sees on a CPU);
- ``assert_no_sync(fn, *args, **kwargs)`` runs ``fn`` and returns its result, or raises
  ``AssertionError`` naming every such operation;
- ``compile_fullgraph(fn)``: ``torch.compile(fn, backend="eager", fullgraph=True)``, which
  raises at the first call on any graph break (a host read, a data-dependent shape or branch);
- ``assert_same(a, b)``: two results (tensors, tuples, NamedTuples, lists, dicts of them)
  equal to the bit, dtypes and shapes included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import torch
from torch.utils._python_dispatch import TorchDispatchMode

T = TypeVar("T")

SYNCING = frozenset(
    {
        "_local_scalar_dense",
        "item",
        "is_nonzero",
        "equal",
        "nonzero",
        "masked_select",
        "masked_scatter",
        "_unique",
        "_unique2",
        "unique_consecutive",
        "unique_dim",
        "repeat_interleave",
    }
)
"""``aten`` ops (by packet name) that read a value on the host or make a shape from data."""


class SyncRecorder(TorchDispatchMode):
    """Records every synchronising op dispatched while it is on (see ``SYNCING``), an index or
    index_put by a boolean mask, and every copy from a non-CPU device to the CPU."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        if name in SYNCING:
            self.seen.append(f"aten.{name}")
        elif name in ("index", "index_put", "index_put_", "_index_put_impl_") and _bool_index(args):
            self.seen.append(f"aten.{name} with a boolean mask")
        elif name in ("_to_copy", "copy_", "to"):
            source = next((a for a in args if isinstance(a, torch.Tensor)), None)
            target = kwargs.get("device")
            if name == "copy_" and len(args) >= 2:
                target, source = args[0].device, args[1]
            if source is not None and source.device.type != "cpu" and target is not None:
                if torch.device(target).type == "cpu":
                    self.seen.append(f"aten.{name} to the CPU")
        return func(*args, **kwargs)


def _bool_index(args: Any) -> bool:
    indices = args[1] if len(args) > 1 else ()
    return any(isinstance(i, torch.Tensor) and i.dtype in (torch.bool, torch.uint8) for i in indices or ())


@contextmanager
def _host_reads(seen: list[str]) -> Iterator[None]:
    """``Tensor.numpy`` and ``Tensor.tolist`` recorded while on (on a CPU they bypass the dispatcher)."""
    originals = {name: getattr(torch.Tensor, name) for name in ("numpy", "tolist")}

    def recording(name: str) -> Callable[..., Any]:
        original = originals[name]

        def read(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            seen.append(f"Tensor.{name}")
            return original(self, *args, **kwargs)

        return read

    try:
        for name in originals:
            setattr(torch.Tensor, name, recording(name))
        yield
    finally:
        for name, original in originals.items():
            setattr(torch.Tensor, name, original)


def syncs(fn: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, list[str]]:
    """``fn(*args, **kwargs)`` and the synchronising operations it made, in order."""
    recorder = SyncRecorder()
    with _host_reads(recorder.seen), recorder:
        result = fn(*args, **kwargs)
    return result, recorder.seen


def assert_no_sync(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, or ``AssertionError`` naming the synchronising operations it made."""
    result, seen = syncs(fn, *args, **kwargs)
    if seen:
        raise AssertionError(f"{getattr(fn, '__qualname__', fn)} made synchronising operations: {', '.join(seen)}")
    return result


def compile_fullgraph(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` compiled whole by ``torch.compile(backend="eager", fullgraph=True)``: its first
    call raises on any graph break. The compile caches are reset first, so a test sees its
    own graph."""
    torch._dynamo.reset()
    compiled: Callable[..., T] = torch.compile(fn, backend="eager", fullgraph=True)
    return compiled


def assert_same(a: Any, b: Any, where: str = "result") -> None:
    """``a`` and ``b`` equal to the bit (tensors: dtype, shape, device and values; containers
    element by element), else ``AssertionError`` naming the first difference."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            raise AssertionError(f"{where}: a tensor beside a {type(b if isinstance(a, torch.Tensor) else a).__name__}")
        if a.dtype != b.dtype or a.shape != b.shape or a.device != b.device:
            raise AssertionError(
                f"{where}: {a.dtype}{tuple(a.shape)} on {a.device} vs {b.dtype}{tuple(b.shape)} on {b.device}"
            )
        if a.dtype.is_floating_point:
            same = torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))
        else:
            same = torch.equal(a, b)
        if not same:
            raise AssertionError(f"{where}: the values differ")
        return
    if type(a) is not type(b):
        raise AssertionError(f"{where}: {type(a).__name__} vs {type(b).__name__}")
    if isinstance(a, dict):
        if a.keys() != b.keys():
            raise AssertionError(f"{where}: keys {sorted(a)} vs {sorted(b)}")
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        if len(a) != len(b):
            raise AssertionError(f"{where}: {len(a)} vs {len(b)} items")
        names = getattr(a, "_fields", None) or [str(i) for i in range(len(a))]
        for name, x, y in zip(names, a, b, strict=True):
            assert_same(x, y, f"{where}.{name}")
    elif a != b:
        raise AssertionError(f"{where}: {a!r} vs {b!r}")
