"""Stable-Baselines3 zip files (``MaskablePPO.save()``), read and written without pickle.

An SB3 zip holds ``data`` (JSON: the model's settings; entries that are Python objects, the
spaces and the policy class among them, are stored as base64 pickles with a readable
summary beside them), ``policy.pth`` (the policy's ``state_dict``) and a few other files.
``read_sb3_policy`` rebuilds a ``MaskableActorCriticPolicy`` from the readable parts only:

- the policy's weights with ``torch.load(weights_only=True)``;
- the layer sizes from the weights' shapes (checked against ``policy_kwargs.net_arch`` where
  the JSON gives it), the activation from the readable name of ``activation_fn`` (one of
  ``ACTIVATIONS``; Tanh, SB3's default, when none is named);
- the observation and action spaces from the game, checked against the shapes the JSON
  states (and against the game stamped in ``boardgym.json`` by ``boardgym train ppo``).

The pickled entries (``":serialized:"``) are never decoded. A file that needs them (a custom
features extractor, an unknown activation or policy class) is refused in one sentence, as is
every other way the file can be wrong.

``write_sb3_zip`` writes what ``MaskablePPO.load`` opens (SB3's own ``save``), with
``boardgym.json`` added (the format and the game), atomically.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from boardgym.checkpoints import check_mlp_sizes, check_parameter_count, check_stored_tensors, game_signature
from boardgym.game import Game
from boardgym.runs import atomic_write_bytes
from boardgym.types import BoardgymError

ZIP_FORMAT = "boardgym.ppo-sb3/1"
STAMP = "boardgym.json"
MAX_DATA_BYTES = 64 * 2**20
MAX_POLICY_BYTES = 1024 * 2**20
POLICY_MODULE = "sb3_contrib.common.maskable.policies"
ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Softplus")
"""Activation classes of ``torch.nn`` an SB3 zip may name in ``policy_kwargs.activation_fn``."""
HARMLESS_KWARGS = {"net_arch", "activation_fn", "ortho_init", "share_features_extractor", "normalize_images"}
"""``policy_kwargs`` keys that change nothing but what is rebuilt from them (weights are loaded)."""


def build_policy(
    game: Game, net_arch: list[int] | dict[str, list[int]], device: str = "cpu", activation: str = "Tanh"
) -> Any:
    """The MaskableActorCriticPolicy for ``game``'s observation and action spaces, with hidden
    layers ``net_arch`` (one list for both heads, or ``{"pi": [...], "vf": [...]}``) and the
    ``torch.nn`` activation named ``activation``."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    if activation not in ACTIVATIONS:
        raise BoardgymError(f"activation {activation!r} is not one of {', '.join(ACTIVATIONS)}")
    arch: Any = dict(net_arch) if isinstance(net_arch, dict) else list(net_arch)
    observation_space = spaces.Box(0.0, 1.0, game.observation_shape, np.float32)
    policy = MaskableActorCriticPolicy(
        observation_space,
        spaces.Discrete(game.num_actions),
        lambda _: 0.0,
        net_arch=arch,
        activation_fn=getattr(torch.nn, activation),
    )
    return policy.to(device)


def is_sb3_zip(path: Path) -> bool:
    """Whether ``path`` is an SB3 zip (a torch.save file is a zip too, without ``data``)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except Exception:  # a probe: what zipfile cannot list (a damaged header may raise
        return False  # NotImplementedError, EOFError...) is no SB3 zip; the loader says why
    return "data" in names and "policy.pth" in names


def read_sb3_policy(path: Path, game: Game, device: str = "cpu") -> Any:
    """The MaskableActorCriticPolicy saved in the SB3 zip ``path``, for ``game``."""
    import torch

    name = f"SB3 zip {str(path)!r}"
    try:
        with zipfile.ZipFile(path) as archive:
            data = _json(_read(archive, "data", MAX_DATA_BYTES, name), name, "data")
            stamp = (
                _json(_read(archive, STAMP, MAX_DATA_BYTES, name), name, STAMP) if STAMP in archive.namelist() else None
            )
            weights = _read(archive, "policy.pth", MAX_POLICY_BYTES, name)
    except BoardgymError:
        raise
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, NotImplementedError, RuntimeError, zlib.error) as error:
        # (zlib: a damaged deflated member; RuntimeError: a member marked encrypted)
        raise BoardgymError(f"{name} cannot be read ({type(error).__name__}): it is corrupt; save it again") from None
    if not isinstance(data, dict):
        raise BoardgymError(f"{name}: its data file holds no JSON object; save the model again with model.save()")
    if isinstance(stamp, dict) and "game_signature" in stamp and stamp["game_signature"] != game_signature(game):
        raise BoardgymError(
            f"{name} was trained on {stamp['game_signature']}, not on {game_signature(game)}; pass the same game"
        )
    _check_policy_class(data, name)
    _check_spaces(data, game, name)
    activation, declared = _policy_kwargs(data, name)
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a corrupt or foreign file
        raise BoardgymError(
            f"{name}: its policy.pth cannot be read ({type(error).__name__}); save the model again"
        ) from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise BoardgymError(f"{name}: its policy.pth is not a state_dict of tensors; save the model again")
    check_stored_tensors(state, f"{name}: its policy.pth", "save the model again")
    check_parameter_count(sum(value.numel() for value in state.values()), name)
    pi, vf = _layers(state, "policy_net", name), _layers(state, "value_net", name)
    if declared is not None and declared != {"pi": pi, "vf": vf}:
        raise BoardgymError(
            f"{name}: policy_kwargs.net_arch says {declared}, but the weights have layers pi={pi}, vf={vf}; "
            "the file is inconsistent, save it again"
        )
    inputs = int(np.prod(game.observation_shape))  # the network the shapes declare, bounded before it is built
    check_mlp_sizes([inputs, *pi, game.num_actions], f"{name} (policy_net)", "save the model again")
    check_mlp_sizes([inputs, *vf, 1], f"{name} (value_net)", "save the model again")
    policy = build_policy(game, {"pi": pi, "vf": vf}, device="cpu", activation=activation)
    try:
        policy.load_state_dict(state)
    except RuntimeError as error:
        first = str(error).splitlines()[0][:200]
        raise BoardgymError(f"{name}: its weights do not fit {game.name}'s policy ({first})") from None
    return policy.to(device)


def write_sb3_zip(model: Any, path: Path, game: Game) -> Path:
    """``model.save`` (SB3's own format, what ``MaskablePPO.load`` opens) with ``boardgym.json``
    added, written atomically to ``path``."""
    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(STAMP, json.dumps({"format": ZIP_FORMAT, "game_signature": game_signature(game)}))
    atomic_write_bytes(path, buffer.getvalue())
    return path


# -- internals -------------------------------------------------------------------------------------
def _read(archive: zipfile.ZipFile, member: str, limit: int, name: str) -> bytes:
    with archive.open(member) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise BoardgymError(f"{name}: its {member} is larger than {limit // 2**20} MiB; this is no model of ours")
    return data


def _json(raw: bytes, name: str, member: str) -> Any:
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise BoardgymError(f"{name}: its {member} is not JSON; the file is corrupt, save it again") from None


def _check_policy_class(data: dict[str, Any], name: str) -> None:
    policy_class = data.get("policy_class")
    module = policy_class.get("__module__") if isinstance(policy_class, dict) else None
    if module != POLICY_MODULE:
        raise BoardgymError(
            f"{name} holds a policy from {module or 'an unknown module'}, not sb3-contrib's MaskablePPO "
            '"MlpPolicy"; save a MaskablePPO("MlpPolicy", ...) model'
        )


def _check_spaces(data: dict[str, Any], game: Game, name: str) -> None:
    observation, action = data.get("observation_space"), data.get("action_space")
    if not isinstance(observation, dict) or not isinstance(action, dict):
        raise BoardgymError(f"{name}: its data names no observation and action spaces; save the model again")
    shape = observation.get("_shape")
    if (
        "Box" not in str(observation.get(":type:"))
        or not isinstance(shape, list)
        or tuple(shape) != tuple(game.observation_shape)
    ):
        raise BoardgymError(
            f"{name} observes {observation.get(':type:')} of shape {shape}, not {game.name}'s planes of shape "
            f"{list(game.observation_shape)}; pass the game it was trained on"
        )
    try:
        actions = int(action.get("n", -1))
    except (TypeError, ValueError):
        actions = -1
    if "Discrete" not in str(action.get(":type:")) or actions != game.num_actions:
        raise BoardgymError(
            f"{name} has {action.get(':type:')} with n={action.get('n')}, not {game.name}'s "
            f"Discrete({game.num_actions}); pass the game it was trained on"
        )


def _policy_kwargs(data: dict[str, Any], name: str) -> tuple[str, dict[str, list[int]] | None]:
    """The activation's name and the declared ``{"pi": [...], "vf": [...]}`` (None if not given)."""
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict):
        raise BoardgymError(f"{name}: its policy_kwargs are not readable; save the model again")
    unknown = sorted(set(kwargs) - HARMLESS_KWARGS - {":type:", ":serialized:"})
    if unknown:
        raise BoardgymError(
            f"{name} was built with policy_kwargs {', '.join(unknown)}, which boardgym cannot rebuild without "
            "unpickling; use MaskablePPO's MlpPolicy with net_arch and activation_fn only"
        )
    activation = "Tanh"
    if "activation_fn" in kwargs:
        text = str(kwargs["activation_fn"])
        found = [a for a in ACTIVATIONS if text in (f"<class 'torch.nn.modules.activation.{a}'>",)]
        if not found:
            raise BoardgymError(
                f"{name} uses activation_fn {text}; boardgym rebuilds only torch.nn's {', '.join(ACTIVATIONS)}"
            )
        activation = found[0]
    arch = kwargs.get("net_arch")
    if arch is None:
        return activation, None
    if isinstance(arch, list) and all(isinstance(n, int) for n in arch):
        return activation, {"pi": list(arch), "vf": list(arch)}
    if isinstance(arch, dict) and set(arch) <= {"pi", "vf"}:
        return activation, {"pi": list(arch.get("pi", [])), "vf": list(arch.get("vf", []))}
    raise BoardgymError(f"{name}: its net_arch {arch!r} is not a list of layer sizes or a pi/vf dict")


def _layers(state: dict[str, Any], net: str, name: str) -> list[int]:
    """Hidden layer sizes of ``mlp_extractor.<net>`` read off its weights' shapes."""
    sizes: dict[int, int] = {}
    for key, tensor in state.items():
        parts = key.split(".")
        if len(parts) == 4 and parts[:2] == ["mlp_extractor", net] and parts[3] == "weight":
            if not parts[2].isdigit() or tensor.ndim != 2:
                raise BoardgymError(f"{name}: its weight {key} is not one of an MLP; save a MlpPolicy model")
            sizes[int(parts[2])] = int(tensor.shape[0])
    return [sizes[index] for index in sorted(sizes)]
