"""Policies trained outside boardgym, played from their weights and a declared architecture.

Two files come back, both read with ``torch.load(weights_only=True)``, so that nothing in
them is ever run (a pickle that would call a function is refused in one sentence):

- ``torch:checkpoint=policy.pt``: boardgym's own policy file, written by ``save_policy``
  (``FORMAT``): the game it was trained on, the framework that trained it, the declared
  architecture (``{"kind": "mlp", "sizes": [inputs, hidden..., actions], "activation":
  "ReLU"}``, ``ACTIVATIONS``) and the weights of each linear layer. CleanRL-style scripts
  and RLlib modules (``boardgym.envs.rllib.save_module``) are saved this way.
- ``tianshou:checkpoint=policy.pth``: Tianshou's own ``torch.save(policy.state_dict(), path)``
  (or the algorithm's ``state_dict()``) of a policy on ``tianshou.utils.net.common.Net``,
  an MLP: the layers' sizes are read off the weights' shapes and checked against the game,
  the activation is declared in the spec (``activation=``, Tianshou's default ReLU).

Either network sees what the envs show the player to move: the rules' observation planes
from that player's side, flattened (``game.observation(state, player)``), and outputs one
logit (or Q-value) per action; the agent plays the legal action of highest output.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardgym.agents.base import BaseAgent
from boardgym.agents.sb3_zip import ACTIVATIONS
from boardgym.checkpoints import MAX_LAYERS, check_mlp_sizes, check_stored_tensors, game_signature, shown, unreadable
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

FORMAT = "boardgym.torch-policy/1"
SAVE_HINT = "save it with boardgym.agents.torch_policy.save_policy (docs/guides/bring-your-model.md)"
TIANSHOU_HINT = "save it with torch.save(policy.state_dict(), path) (docs/guides/bring-your-model.md)"
TIANSHOU_PREFIXES = ("model.model.model.", "policy.model.model.model.")
"""Where a Tianshou ``Net``'s linear layers sit in the policy's and in the algorithm's ``state_dict``."""


def save_policy(
    path: Path | str, game: Game, layers: Sequence[Any], *, activation: str, framework: str = "torch"
) -> Path:
    """Write an MLP policy for ``game`` to ``path`` (atomically) in ``FORMAT``: ``layers`` are
    its linear layers in order (``torch.nn.Linear`` modules, or ``(weight, bias)`` pairs of
    tensors or arrays), the torch.nn ``activation`` between each two of them, none after the
    last; ``framework`` says what trained it. The first layer must take the game's flattened
    observation, the last give one output per action."""
    import torch

    from boardgym.checkpoints import save_checkpoint

    _check_activation(activation, f"policy for {path}")
    weights: dict[str, Any] = {}
    for index, layer in enumerate(layers):
        weight, bias = (layer.weight, layer.bias) if hasattr(layer, "weight") else layer
        weights[f"{index}.weight"] = torch.as_tensor(np.asarray(_numpy(weight)), dtype=torch.float32).clone()
        weights[f"{index}.bias"] = torch.as_tensor(np.asarray(_numpy(bias)), dtype=torch.float32).clone()
    sizes = _sizes(weights, len(layers), game, f"the policy for {path}", SAVE_HINT)
    architecture = {"kind": "mlp", "sizes": sizes, "activation": activation}
    return save_checkpoint(
        path, {"architecture": architecture, "framework": framework, "weights": weights}, format=FORMAT, game=game
    )


def read_tensors(path: Path | str | None, what: str, agent: str, hint: str) -> dict[str, Any]:
    """The dict in the torch file ``path``, read with ``weights_only=True``: every way the file
    can be wrong (missing, a folder, empty, not a torch file, a pickle of objects or code, not a
    dict) is one ``BoardgymError`` naming it; ``agent`` is the spec's name, ``hint`` how to save one."""
    import torch

    if path is None:
        raise BoardgymError(f"the {agent} agent needs checkpoint=PATH, e.g. {agent}:checkpoint=policy.pt; {hint}")
    path = Path(path)
    name = f"{what} {str(path)!r}"
    if path.is_dir():
        found = (
            " (an RLlib checkpoint folder, whose state is pickled)" if (path / "rllib_checkpoint.json").exists() else ""
        )
        raise BoardgymError(f"{name} is a folder{found}; pass a file: {hint}")
    if not path.exists():
        raise BoardgymError(f"{name} does not exist; {hint}")
    if not path.is_file():
        raise BoardgymError(f"{name} is not a regular file; pass the policy file itself: {hint}")
    if path.stat().st_size == 0:
        raise BoardgymError(f"{name} is empty (0 bytes); copy it again or {hint}")
    try:
        with warnings.catch_warnings():  # torch warns of a foreign pickle's protocol before refusing it
            warnings.simplefilter("ignore")
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a cut-off or foreign file, or a pickle of objects
        raise BoardgymError(unreadable(name, error, hint)) from None
    if not isinstance(payload, dict):
        raise BoardgymError(f"{name} holds a {type(payload).__name__}, not a dict of weights; {hint}")
    check_stored_tensors(payload, name, hint)
    return dict(payload)


def read_policy(path: Path | str | None, game: Game) -> Any:
    """The network saved by ``save_policy`` at ``path``, for ``game`` (checked)."""
    payload = read_tensors(path, "policy file", "torch", SAVE_HINT)
    name = f"policy file {str(path)!r}"
    if payload.get("format") != FORMAT:
        raise BoardgymError(
            f"{name} is not a {FORMAT} file (its format is {payload.get('format')!r}); "
            f"a Tianshou state_dict plays as tianshou:checkpoint=, an SB3 zip as ppo:checkpoint=; or {SAVE_HINT}"
        )
    if payload.get("game_signature") != game_signature(game):
        raise BoardgymError(
            f"{name} was trained on {payload.get('game_signature')}, not on {game_signature(game)}; pass the same game"
        )
    architecture, weights = payload.get("architecture"), payload.get("weights")
    if not isinstance(architecture, dict) or not isinstance(weights, dict) or architecture.get("kind") != "mlp":
        raise BoardgymError(f"{name} declares no MLP architecture with its weights; {SAVE_HINT}")
    sizes, activation = architecture.get("sizes"), architecture.get("activation")
    if not isinstance(activation, str):
        raise BoardgymError(f"{name} declares activation {shown(activation)}, not a name; {SAVE_HINT}")
    _check_activation(activation, name)
    sizes = check_mlp_sizes(sizes, name, SAVE_HINT)  # before any weight is read: a file may declare gigabytes
    found = _sizes(weights, len(sizes) - 1, game, name, SAVE_HINT)
    if found != sizes:
        raise BoardgymError(f"{name} declares layer sizes {sizes}, but its weights have {found}; {SAVE_HINT}")
    return build_mlp(weights, len(sizes) - 1, activation)


def read_tianshou_policy(path: Path | str | None, game: Game, activation: str) -> Any:
    """The MLP of a Tianshou policy's (or algorithm's) ``state_dict`` saved at ``path``."""
    payload = read_tensors(path, "Tianshou checkpoint", "tianshou", TIANSHOU_HINT)
    name = f"Tianshou checkpoint {str(path)!r}"
    _check_activation(activation, name)
    for prefix in TIANSHOU_PREFIXES:
        numbered = sorted(
            {int(m.group(1)) for key in payload if (m := re.fullmatch(re.escape(prefix) + r"(\d+)\.weight", key))}
        )
        if numbered:
            break
    else:
        raise BoardgymError(
            f"{name} holds no Tianshou Net (no {TIANSHOU_PREFIXES[0]}<i>.weight among its keys); "
            f"train on tianshou.utils.net.common.Net and {TIANSHOU_HINT}"
        )
    if len(numbered) > MAX_LAYERS:
        raise BoardgymError(f"{name} holds {len(numbered)} linear layers, more than the {MAX_LAYERS} boardgym loads")
    weights = {}
    for index, number in enumerate(numbered):
        for part in ("weight", "bias"):
            key = f"{prefix}{number}.{part}"
            if key not in payload:
                raise BoardgymError(f"{name} lacks {key}; {TIANSHOU_HINT}")
            weights[f"{index}.{part}"] = payload[key]
    check_mlp_sizes(_sizes(weights, len(numbered), game, name, TIANSHOU_HINT), name, TIANSHOU_HINT)
    return build_mlp(weights, len(numbered), activation)


def build_mlp(weights: dict[str, Any], layers: int, activation: str) -> Any:
    """``torch.nn.Sequential`` of ``layers`` linear layers with ``activation`` between them,
    loaded with ``weights`` (``"<i>.weight"``, ``"<i>.bias"``, already checked by ``_sizes``)."""
    import torch
    from torch import nn

    modules: list[nn.Module] = []
    for index in range(layers):
        weight = weights[f"{index}.weight"]
        linear = nn.Linear(int(weight.shape[1]), int(weight.shape[0]))
        with torch.no_grad():
            linear.weight.copy_(weight)
            linear.bias.copy_(weights[f"{index}.bias"])
        modules.append(linear)
        if index < layers - 1:
            modules.append(getattr(nn, activation)())
    return nn.Sequential(*modules).eval()


class MLPPolicyAgent(BaseAgent):
    """The legal action of highest output of an MLP over the flattened observation."""

    net: Any

    def act(self, game: Game, state: Any) -> Action:
        import torch

        planes = np.asarray(game.observation(state, game.current_player(state)), dtype=np.float32).reshape(1, -1)
        with torch.no_grad():
            outputs = self.net(torch.from_numpy(planes))[0].numpy()
        return int(np.argmax(np.where(game.legal_mask(state), outputs, -np.inf)))


class TorchPolicyAgent(MLPPolicyAgent):
    """A policy saved by ``save_policy`` (CleanRL-style scripts, RLlib modules)."""

    def __init__(self, game: Game, *, seed: int | None = None, checkpoint: Path | None = None) -> None:
        super().__init__(game, seed=seed)
        self.net = read_policy(checkpoint, game)


class TianshouAgent(MLPPolicyAgent):
    """A Tianshou policy on ``Net`` from its ``state_dict`` (``activation``: the Net's, ReLU by default)."""

    def __init__(
        self, game: Game, *, seed: int | None = None, checkpoint: Path | None = None, activation: str = "ReLU"
    ) -> None:
        super().__init__(game, seed=seed)
        self.net = read_tianshou_policy(checkpoint, game, activation)


# -- internals -------------------------------------------------------------------------------------
def _check_activation(activation: str, name: str) -> None:
    if activation not in ACTIVATIONS:
        raise BoardgymError(f"{name}: activation {activation!r} is not one of torch.nn's {', '.join(ACTIVATIONS)}")


def _sizes(weights: dict[str, Any], layers: int, game: Game, name: str, hint: str) -> list[int]:
    """``[inputs, hidden..., actions]`` of the ``layers`` linear layers in ``weights``, checked:
    finite float matrices that chain, taking ``game``'s flattened observation and giving one
    output per action."""
    import torch

    sizes: list[int] = []
    for index in range(layers):
        weight, bias = weights.get(f"{index}.weight"), weights.get(f"{index}.bias")
        if not isinstance(weight, torch.Tensor) or not isinstance(bias, torch.Tensor):
            raise BoardgymError(f"{name} lacks the weight and bias of layer {index}; {hint}")
        if (
            weight.ndim != 2
            or tuple(bias.shape) != (weight.shape[0],)
            or not weight.is_floating_point()
            or not bias.is_floating_point()
        ):
            raise BoardgymError(
                f"{name}: layer {index} has weight {tuple(weight.shape)} and bias {tuple(bias.shape)}, "
                f"not a linear layer's; {hint}"
            )
        if not (torch.isfinite(weight).all() and torch.isfinite(bias).all()):
            raise BoardgymError(f"{name}: layer {index} holds NaN or infinite weights; train it again")
        if sizes and sizes[-1] != weight.shape[1]:
            raise BoardgymError(
                f"{name}: layer {index} takes {weight.shape[1]} inputs but the layer before gives {sizes[-1]}; {hint}"
            )
        sizes = sizes or [int(weight.shape[1])]
        sizes.append(int(weight.shape[0]))
    inputs = int(np.prod(game.observation_shape))
    if not sizes or sizes[0] != inputs or sizes[-1] != game.num_actions:
        raise BoardgymError(
            f"{name} maps {sizes[0] if sizes else '?'} inputs to {sizes[-1] if sizes else '?'} outputs, but "
            f"{game.name} has {inputs} observation values {tuple(game.observation_shape)} and "
            f"{game.num_actions} actions; pass the game it was trained on"
        )
    return sizes


def _numpy(value: Any) -> Any:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else value
