"""The AlphaZero policy/value network: a residual tower over the game's observation planes.

Silver et al., "A general reinforcement learning algorithm that masters chess, shogi and Go
through self-play" (Science, 2018): a 3x3 convolution, ``blocks`` residual blocks of
``channels`` filters, a policy head (1x1 convolution to two planes, then a linear layer to
``num_actions`` logits) and a value head (1x1 convolution to one plane, a hidden layer,
``tanh``). Seed report 003 used 10 blocks of 256 channels for Quixo and could not train it on
its hardware; small games here train with 2-6 blocks of 32-128 channels.

Observations of shape ``(C, H, W)`` are used as they are; a flat ``(n,)`` vector is read as
``(n, 1, 1)`` and ``(H, W)`` as ``(1, H, W)``, so every game fits the same tower.

Illegal moves are masked by setting their logits to a large negative number before the
softmax, so their probability is exactly zero in float32.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch import nn

from boardgym.checkpoints import shown
from boardgym.game import Game
from boardgym.types import BoardgymError

ILLEGAL_LOGIT = -1e9


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + x)


class AlphaZeroNet(nn.Module):
    """``forward(planes) -> (policy logits (B, num_actions), value (B,) in [-1, 1])``."""

    def __init__(
        self,
        observation_shape: tuple[int, ...],
        num_actions: int,
        *,
        blocks: int = 4,
        channels: int = 64,
        value_hidden: int = 64,
    ) -> None:
        super().__init__()
        if blocks < 0 or channels < 1 or value_hidden < 1:
            raise BoardgymError(
                f"network size blocks={blocks}, channels={channels}, value_hidden={value_hidden} is invalid; "
                "use blocks >= 0 and channels, value_hidden >= 1"
            )
        self.observation_shape = tuple(observation_shape)
        self.plane_shape = planes_shape(self.observation_shape)
        self.num_actions = num_actions
        self.blocks, self.channels, self.value_hidden = blocks, channels, value_hidden
        in_channels, height, width = self.plane_shape
        cells = height * width
        self.stem = nn.Sequential(
            nn.Conv2d(in_channels, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU()
        )
        self.tower = nn.Sequential(*(ResidualBlock(channels) for _ in range(blocks)))
        self.policy_head = nn.Sequential(
            nn.Conv2d(channels, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten()
        )
        self.policy_out = nn.Linear(2 * cells, num_actions)
        self.value_head = nn.Sequential(
            nn.Conv2d(channels, 1, 1, bias=False),
            nn.BatchNorm2d(1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(cells, value_hidden),
            nn.ReLU(),
            nn.Linear(value_hidden, 1),
            nn.Tanh(),
        )

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.tower(self.stem(planes.reshape(-1, *self.plane_shape)))
        return self.policy_out(self.policy_head(x)), self.value_head(x).squeeze(-1)

    def architecture(self) -> dict[str, Any]:
        """What ``from_architecture`` needs to rebuild this network (stored in checkpoints)."""
        return {
            "observation_shape": list(self.observation_shape),
            "num_actions": self.num_actions,
            "blocks": self.blocks,
            "channels": self.channels,
            "value_hidden": self.value_hidden,
        }

    @classmethod
    def from_architecture(cls, architecture: dict[str, Any]) -> AlphaZeroNet:
        """The network ``architecture`` describes, once ``check_architecture`` has bounded it."""
        sizes = check_architecture(architecture)
        return cls(
            tuple(sizes["observation_shape"]),
            sizes["num_actions"],
            blocks=sizes["blocks"],
            channels=sizes["channels"],
            value_hidden=sizes["value_hidden"],
        )


ARCHITECTURE_BOUNDS = {
    "blocks": (0, 64),
    "channels": (1, 1024),
    "value_hidden": (1, 4096),
    "num_actions": (1, 1 << 20),
}
"""The sane range of each size of an architecture read from a file (AlphaZero's own tower is
19 or 39 blocks of 256 channels): a few bytes may otherwise ask for ``blocks=10**7``, hours and
hundreds of gigabytes to build. ``MAX_PLANE_SIDE`` bounds each side of the observation planes."""
MAX_PLANE_SIDE = 1024


def check_architecture(architecture: Any) -> dict[str, Any]:
    """The sizes of ``architecture`` (``AlphaZeroNet.architecture()``'s dict) as ints, each
    refused in one sentence when missing, not a whole number, or out of ``ARCHITECTURE_BOUNDS``."""
    if not isinstance(architecture, dict):
        raise BoardgymError(f"the architecture is a {type(architecture).__name__}, not a dict of sizes")
    sizes: dict[str, Any] = {}
    for key, (low, high) in ARCHITECTURE_BOUNDS.items():
        value = architecture.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise BoardgymError(f"the architecture's {key}={shown(value)} is not a whole number from {low} to {high}")
        sizes[key] = value
    shape = architecture.get("observation_shape")
    if (
        not isinstance(shape, (list, tuple))
        or not 1 <= len(shape) <= 3
        or not all(not isinstance(n, bool) and isinstance(n, int) and 1 <= n <= MAX_PLANE_SIDE for n in shape)
    ):
        raise BoardgymError(
            f"the architecture's observation_shape={shown(shape, 60)} is not 1 to 3 whole numbers from 1 to "
            f"{MAX_PLANE_SIDE}"
        )
    sizes["observation_shape"] = list(shape)
    return sizes


def build_network(game: Game, *, blocks: int = 4, channels: int = 64, value_hidden: int = 64) -> AlphaZeroNet:
    """A network sized for ``game``'s observation planes and action space."""
    return AlphaZeroNet(
        game.observation_shape, game.num_actions, blocks=blocks, channels=channels, value_hidden=value_hidden
    )


def folded_for_inference(network: AlphaZeroNet) -> AlphaZeroNet:
    """A copy of ``network`` for inference only, each batch normalisation folded into the
    convolution before it (its running statistics and affine weights become the convolution's
    weights and bias; ``torch.nn.utils.fusion.fuse_conv_bn_eval``): the same answers to
    float rounding (about 1e-7), one operation fewer per convolution. The copy does not follow
    later changes to ``network``'s weights; make a new one after training."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    folded = copy.deepcopy(network).eval()
    for block in folded.tower:
        assert isinstance(block, ResidualBlock)
        block.conv1 = fuse_conv_bn_eval(block.conv1, block.bn1)
        block.conv2 = fuse_conv_bn_eval(block.conv2, block.bn2)
        block.bn1 = block.bn2 = nn.Identity()  # type: ignore[assignment]
    for head in (folded.stem, folded.policy_head, folded.value_head):
        conv, norm = head[0], head[1]
        assert isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d)
        head[0] = fuse_conv_bn_eval(conv, norm)
        head[1] = nn.Identity()
    for parameter in folded.parameters():
        parameter.requires_grad_(False)
    return folded


def inference_copy(network: AlphaZeroNet, *, fast: bool = True) -> AlphaZeroNet:
    """The copy of ``network`` a search calls: folded (``folded_for_inference``), and on CUDA
    with ``fast`` in half precision (float16 weights) and channels_last, the layout cuDNN's
    convolutions run in, so that no call converts between layouts or to float16 on the way
    (``NetworkBatchEvaluator`` gives it its planes in that dtype). On a CPU the folded float32
    copy is the fastest. Make a new one after training."""
    folded = folded_for_inference(network)
    if fast and next(folded.parameters()).device.type == "cuda":
        folded = folded.half().to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    return folded


def masked_log_policy(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over legal actions only (float32); illegal entries are about -1e9."""
    return torch.log_softmax(logits.float().masked_fill(~legal, ILLEGAL_LOGIT), dim=-1)


def masked_policy(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Probabilities that are exactly zero on illegal actions and sum to one over legal ones."""
    return torch.softmax(logits.float().masked_fill(~legal, ILLEGAL_LOGIT), dim=-1)


def planes_shape(observation_shape: tuple[int, ...]) -> tuple[int, int, int]:
    if len(observation_shape) == 3:
        return (int(observation_shape[0]), int(observation_shape[1]), int(observation_shape[2]))
    if len(observation_shape) == 2:
        return (1, int(observation_shape[0]), int(observation_shape[1]))
    if len(observation_shape) == 1:
        return (int(observation_shape[0]), 1, 1)
    raise BoardgymError(
        f"observation shape {observation_shape} is not supported by the AlphaZero network; "
        "a game's observation must be (n,), (H, W) or (C, H, W)"
    )
