"""Checkpoints: ``save_checkpoint(path, payload, format=..., game=...)`` stamps the payload with
its ``format`` (one tag per method, e.g. ``boardgym.tabular/1``) and the game's signature
(``game_signature``) and writes it atomically; ``load_checkpoint`` is the one loader every
learned agent and every ``--resume`` uses: ``torch.load(weights_only=True)`` (no pickle), then
the format, the game and the required keys are checked, each failure one sentence saying what
to do. ``checkpoint_content`` turns a payload of the right format whose content does not fit
into one such sentence too.

What a file may make a loader allocate is bounded before anything is built: every tensor of
a payload must be stored as itself (``check_stored_tensors``: no expanded or strided views,
which ``weights_only=True`` accepts), a declared MLP has at most ``MAX_LAYERS`` layers of at
most ``MAX_WIDTH`` units (``check_mlp_sizes``), and no network of more than
``DEFAULT_MAX_PARAMETERS`` parameters is built unless ``BOARDGYM_MAX_PARAMETERS`` allows it
(``check_parameter_count``).

This module reads games duck-typed (``name`` and ``params()``): it sits below the games layer.
"""

from __future__ import annotations

import errno
import io
import itertools
import json
import os
import pickle
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from boardgym.runs import atomic_write_bytes
from boardgym.types import BoardgymError

LEGACY_FORMATS: dict[str, str] = {"boardgym-alphazero-v1": "boardgym.alphazero/1"}
"""Format tags of checkpoints written before the tags were unified, and the tag each one
reads as now (the contents did not change)."""


class NamedGame(Protocol):
    """What the run layer needs of a game: its registry name and constructor parameters."""

    name: str

    def params(self) -> dict[str, Any]: ...


# -- run folders --------------------------------------------------------------------------------


def game_signature(game: NamedGame) -> str:
    """The game and its parameters as JSON, stamped in checkpoints and checked on load."""
    params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in game.params().items()}
    return json.dumps({"game": game.name, "params": params}, sort_keys=True)


def retrain_command(method: str, game: NamedGame | None) -> str:
    """``boardgym train METHOD --game GAME -p KEY=VALUE ...`` for ``game``."""
    if game is None:
        return f"boardgym train {method} --game GAME"
    params = "".join(
        f" -p {k}={','.join(map(str, v)) if isinstance(v, (tuple, list)) else v}" for k, v in game.params().items()
    )
    return f"boardgym train {method} --game {game.name}{params}"


def save_checkpoint(path: Path | str, payload: dict[str, Any], *, format: str, game: NamedGame | None) -> Path:
    """``torch.save`` atomically, stamped with ``format`` and ``game_signature(game)`` (no game
    stamp with ``game=None``, for files that are not tied to one). Keep the payload to tensors,
    numbers, strings, lists and dicts so that ``load_checkpoint`` reads it with
    ``weights_only=True``."""
    import torch

    stamped = {**payload, "format": format}
    if game is not None:
        stamped["game_signature"] = game_signature(game)
    buffer = io.BytesIO()
    torch.save(stamped, buffer)
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


def load_checkpoint(
    path: Path | str | None,
    *,
    format: str | None = None,
    game: NamedGame | None = None,
    required: Iterable[str] = (),
    method: str | None = None,
    agent: str | None = None,
    what: str = "checkpoint",
    map_location: str = "cpu",
) -> dict[str, Any]:
    """The payload of a checkpoint written by ``save_checkpoint``, read without unpickling any
    object, after checking (when given) its ``format`` tag, that it was trained on ``game``,
    and that it holds the ``required`` keys. Every failure is one ``BoardgymError`` sentence
    that names the file and says what to do; ``method`` names the training method in the
    advice to retrain, ``agent`` the agent spec that was not given a ``path`` (None), ``what``
    the kind of file in the messages."""
    import torch

    retrain = retrain_command(method or "METHOD", game)
    if path is None:
        agent = agent or method or "learned"
        example = f"runs/{game.name if game is not None else '<game>'}/{method or '<method>'}/<run>/final.pt"
        raise BoardgymError(
            f"the {agent} agent needs checkpoint=PATH, a file written by training such as "
            f"{agent}:checkpoint={example} (train one with `{retrain}`)"
        )
    path = Path(path)
    name = f"{what} {str(path)!r}"
    if not path.exists():
        raise BoardgymError(
            f"{name} does not exist; pass the path of a final.pt or checkpoint.pt written by `boardgym train`"
        )
    if path.is_dir():
        raise BoardgymError(f"{name} is a folder; pass the final.pt or checkpoint.pt inside it")
    if not path.is_file():
        raise BoardgymError(
            f"{name} is not a regular file; pass a final.pt or checkpoint.pt written by `boardgym train`"
        )
    try:
        size = path.stat().st_size
        if size == 0:
            raise BoardgymError(
                f"{name} is empty (0 bytes), cut off by an interrupted copy or a full disk; copy it again or retrain with `{retrain}`"
            )
        with warnings.catch_warnings():  # torch warns of a foreign pickle's protocol before refusing it
            warnings.simplefilter("ignore")
            payload = torch.load(path, map_location=map_location, weights_only=True)
    except BoardgymError:
        raise
    except Exception as error:  # torch raises many kinds for a corrupt, cut-off or foreign file
        raise BoardgymError(unreadable(name, error, f"pass another file or retrain with `{retrain}`")) from None
    if not isinstance(payload, dict):
        raise BoardgymError(f"{name} is not a boardgym checkpoint (it holds no dict); retrain with `{retrain}`")
    check_stored_tensors(payload, name, f"retrain with `{retrain}`")
    payload = _upgrade(payload)
    if format is not None and payload.get("format") != format:
        found = payload.get("format")
        if isinstance(found, str) and found.rpartition("/")[0] == format.rpartition("/")[0]:
            raise BoardgymError(
                f"{name} is in format {found}, which this version of boardgym no longer reads ({format}); "
                f"retrain with `{retrain}`"
            )
        raise BoardgymError(
            f"{name} is not a {format} checkpoint (its format is {found!r}); pass a file written by "
            f"`boardgym train {method or 'METHOD'}`, or retrain with `{retrain}`"
        )
    # The file is of the right kind: the method that wrote it knows best how to retrain it.
    written_by = payload.get("method")
    retrain = retrain_command(written_by if isinstance(written_by, str) and written_by else method or "METHOD", game)
    if game is not None:
        saved = payload.get("game_signature")
        if saved is None:
            raise BoardgymError(f"{name} does not say which game it was trained on; retrain with `{retrain}`")
        if saved != game_signature(game):
            raise BoardgymError(
                f"{name} was trained on {_describe(saved)}, not on {_describe(game_signature(game))}; "
                f"pass the same game and parameters, or retrain with `{retrain}`"
            )
    missing = [key for key in required if key not in payload]
    if missing:
        raise BoardgymError(
            f"{name} lacks {', '.join(missing)}: it was written by an older boardgym or another method; "
            f"retrain with `{retrain}`"
        )
    return payload


def unreadable(name: str, error: BaseException, advice: str) -> str:
    """The sentence for a ``torch.load`` of ``name`` that failed with ``error``: this user may
    not read the file (the operating system's ``EACCES``/``EPERM``), or its content is cut off
    or not a torch file at all. A zip cut short makes torch raise ``OSError`` errno 22 (or a
    ``RuntimeError`` of its stream reader), which is damage, not a permission problem."""
    if isinstance(error, OSError) and error.errno in (errno.EACCES, errno.EPERM):
        return (
            f"{name} cannot be opened: {error.strerror or error}; the file is there but this user may not read "
            "it: ask its owner to make it readable (chmod a+r) or copy it"
        )
    if isinstance(error, OSError) and error.errno not in (None, errno.EINVAL):  # a lost mount, a disk error
        return f"{name} cannot be read: {error.strerror or error}; check the disk or copy the file again"
    kind = type(error).__name__
    if isinstance(error, (OSError, EOFError)) or "PytorchStreamReader" in str(error):
        return (
            f"{name} cannot be read ({kind}): it is damaged or incomplete (cut off by an interrupted copy or a "
            f"full disk); copy it again, {advice}"
        )
    if isinstance(error, pickle.UnpicklingError):  # weights_only refuses a class, a function or a foreign opcode
        return (
            f"{name} cannot be read as tensors only ({kind}): it is corrupt, or a pickle of objects or code, which "
            f"boardgym never runs; {advice}"
        )
    return f"{name} cannot be read ({kind}): it is corrupt or not a torch file; {advice}"


# -- limits: what a file may ask a loader to allocate -------------------------------------------

PARAMETERS_ENV = "BOARDGYM_MAX_PARAMETERS"
"""The environment variable that raises (or lowers) ``DEFAULT_MAX_PARAMETERS``."""
DEFAULT_MAX_PARAMETERS = 50_000_000
"""The most parameters a loader builds from one file (200 MB of float32) unless
``BOARDGYM_MAX_PARAMETERS`` says otherwise: a few kilobytes may declare a network of
gigabytes, and nothing a board game needs comes near it."""
MAX_LAYERS = 64
"""The most linear layers of a loaded MLP."""
MAX_WIDTH = 1 << 16
"""The most units of one layer of a loaded MLP."""


def max_parameters() -> int:
    """``DEFAULT_MAX_PARAMETERS``, or the whole number in ``BOARDGYM_MAX_PARAMETERS``."""
    text = os.environ.get(PARAMETERS_ENV, "").strip().replace("_", "")
    if not text:
        return DEFAULT_MAX_PARAMETERS
    if not text.isdigit() or int(text) < 1:
        raise BoardgymError(
            f"{PARAMETERS_ENV}={os.environ[PARAMETERS_ENV]!r} is not a whole number of parameters; "
            f"set it to one such as {DEFAULT_MAX_PARAMETERS} or unset it"
        )
    return int(text)


def shown(value: Any, width: int = 40) -> str:
    """``value`` as one short line of text, for a sentence about a value read from a file."""
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def check_parameter_count(count: int, name: str) -> None:
    """Refuse, in one sentence, to build ``count`` parameters for ``name`` beyond ``max_parameters()``."""
    limit = max_parameters()
    if count > limit:
        raise BoardgymError(
            f"{name} declares a network of {count:,} parameters, more than the {limit:,} boardgym builds from a "
            f"file; if you trust the file and mean it, set {PARAMETERS_ENV}={count} in the environment"
        )


def mlp_parameter_count(sizes: Sequence[int]) -> int:
    """The weights and biases of linear layers from ``sizes[0]`` inputs through ``sizes[-1]`` outputs."""
    return sum(inputs * outputs + outputs for inputs, outputs in itertools.pairwise(sizes))


def check_mlp_sizes(sizes: Any, name: str, hint: str) -> list[int]:
    """``sizes`` (inputs, hidden widths..., outputs) as a list of ints, refused in one sentence
    unless it is 2 to ``MAX_LAYERS + 1`` whole numbers from 1 to ``MAX_WIDTH`` whose network
    has at most ``max_parameters()`` parameters; checked before anything is built."""
    if not isinstance(sizes, (list, tuple)) or not 2 <= len(sizes) <= MAX_LAYERS + 1:
        found = f"{len(sizes)} sizes" if isinstance(sizes, (list, tuple)) else shown(sizes)
        raise BoardgymError(
            f"{name} declares layer sizes {found}, not 2 to {MAX_LAYERS + 1} numbers (at most {MAX_LAYERS} "
            f"layers); {hint}"
        )
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_WIDTH:
            raise BoardgymError(
                f"{name} declares a layer of {shown(size)} units; widths are whole numbers from 1 to "
                f"{MAX_WIDTH}; {hint}"
            )
    check_parameter_count(mlp_parameter_count(sizes), name)
    return list(sizes)


def check_stored_tensors(payload: Any, name: str, advice: str) -> None:
    """Refuse, in one sentence, a payload holding a tensor that is not stored as itself: an
    expanded (stride-0) or other non-contiguous view, a storage smaller than its elements, a
    sparse or other layout. ``torch.load(weights_only=True)`` accepts such tensors, and an
    expanded one of a few bytes in the file becomes gigabytes the moment a loader copies it.
    After this check every tensor's elements are bytes of the file. Reads metadata only."""
    import torch

    pending: list[tuple[str, Any]] = [("", payload)]
    while pending:
        key, value = pending.pop()
        if isinstance(value, dict):
            pending.extend((f"{key}.{k}" if key else str(k), v) for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            pending.extend((f"{key}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, torch.Tensor):
            where = f"{name}: tensor {key or 'payload'} {tuple(value.shape)}"
            if value.layout != torch.strided:
                raise BoardgymError(f"{where} is stored as {value.layout}, not as a plain dense tensor; {advice}")
            needed = value.numel() * value.element_size()
            stored = value.untyped_storage().nbytes()
            if not value.is_contiguous() or stored < needed:
                raise BoardgymError(
                    f"{where} is a view of {stored} stored bytes with strides {tuple(value.stride())}, not its "
                    f"own {needed} bytes (an expanded or strided tensor that would be copied out to full size); "
                    f"save each tensor with .contiguous().clone(), or {advice}"
                )


CONTENT_ERRORS = (KeyError, IndexError, TypeError, ValueError, RuntimeError, AttributeError, OverflowError)
"""What building an agent or a training state from a payload of the wrong shape raises."""


@contextmanager
def checkpoint_content(
    path: Path | str | None, *, method: str | None = None, game: NamedGame | None = None, what: str = "checkpoint"
) -> Iterator[None]:
    """Build something from a checkpoint's payload inside this block: a payload in the right
    format whose content does not fit (a key missing deep inside, a value of the wrong type,
    weights that do not match the architecture, non-finite weights) becomes one sentence
    naming the file and how to retrain, instead of the ``KeyError``/``RuntimeError`` of the
    code that read it. ``load_checkpoint`` checks the envelope; this checks the letter::

        payload = load_checkpoint(path, format=FORMAT, game=game, required=("policy",))
        with checkpoint_content(path, method="ppo", game=game):
            policy.load_state_dict(payload["policy"])
    """
    try:
        yield
    except BoardgymError as error:
        if path is None or str(path) in str(error):
            raise
        raise BoardgymError(f"{what} {str(path)!r}: {error}") from None
    except CONTENT_ERRORS as error:
        reason = (str(error).strip().splitlines() or [""])[0].strip()
        reason = reason if len(reason) <= 100 else reason[:97] + "..."
        detail = f"{type(error).__name__}: {reason}" if reason else type(error).__name__
        raise BoardgymError(
            f"{what} {str(path)!r} is damaged: its content does not fit ({detail}); pass another file or "
            f"retrain with `{retrain_command(method or 'METHOD', game)}`"
        ) from None


def check_finite(values: Any, name: str) -> None:
    """A ``ValueError`` (for ``checkpoint_content``) when ``values`` (a tensor, an array, a
    number or a dict of tensors) holds a NaN or an infinity: weights that would play nonsense."""
    import math

    import torch

    items = values.values() if isinstance(values, dict) else [values]
    for item in items:
        if torch.is_tensor(item):
            if item.is_floating_point() and not bool(torch.isfinite(item).all()):
                raise ValueError(f"{name} holds NaN or infinite numbers")
        elif isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{name} holds NaN or infinite numbers")


def _upgrade(payload: dict[str, Any]) -> dict[str, Any]:
    """Read checkpoints of older versions as the current ones: renamed format tags, and the
    separate ``game`` / ``game_params`` keys that AlphaZero checkpoints used to carry."""
    found = payload.get("format")
    if isinstance(found, str) and found in LEGACY_FORMATS:
        payload["format"] = LEGACY_FORMATS[found]
    if "game_signature" not in payload and isinstance(payload.get("game"), str):
        try:
            params = json.loads(payload.get("game_params") or "{}")
        except (TypeError, ValueError):
            params = None
        if isinstance(params, dict):
            payload["game_signature"] = json.dumps({"game": payload["game"], "params": params}, sort_keys=True)
    return payload


def _describe(signature: Any) -> str:
    """``nim heaps=2,3`` for a game signature (the raw text if it is not one)."""
    try:
        parsed = json.loads(signature)
        params = " ".join(
            f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in parsed["params"].items()
        )
        return f"{parsed['game']} {params}".strip()
    except (TypeError, ValueError, KeyError, AttributeError):
        return repr(signature)
