"""Play from a MaskablePPO policy trained by ``boardgym train ppo``.

The checkpoint is a plain dict (``torch.load(weights_only=True)`` reads it): the policy's
``state_dict``, the layer sizes it was built with and the game it was trained on; or an SB3
zip, ``MaskablePPO.save()``'s file (``final.zip`` of a run, or a model trained with SB3 on a
``gym.make`` env), read without unpickling (``boardgym.agents.sb3_zip``). The agent
rebuilds sb3-contrib's ``MaskableActorCriticPolicy`` from them, shows it the rules'
observation planes from the mover's point of view with the legal-action mask, and plays the
most probable legal action (``deterministic=false`` samples instead).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from boardgym.agents.base import BaseAgent
from boardgym.agents.sb3_zip import build_policy, is_sb3_zip, read_sb3_policy
from boardgym.checkpoints import check_finite, check_mlp_sizes, checkpoint_content, load_checkpoint
from boardgym.game import Game
from boardgym.types import Action

FORMAT = "boardgym.ppo/1"


class PPOAgent(BaseAgent):
    """The most probable legal action of a trained policy (or a sample with deterministic=false)."""

    def __init__(
        self, game: Game, *, seed: int | None = None, checkpoint: Path | None = None, deterministic: bool = True
    ) -> None:
        super().__init__(game, seed=seed)
        import torch

        if checkpoint is not None and Path(checkpoint).is_file() and is_sb3_zip(Path(checkpoint)):
            self.policy = read_sb3_policy(Path(checkpoint), game)
        else:
            payload = load_checkpoint(
                checkpoint, format=FORMAT, game=game, required=("net_arch", "policy"), method="ppo"
            )
            with checkpoint_content(checkpoint, method="ppo", game=game):
                policy, net_arch = payload["policy"], [int(width) for width in payload["net_arch"]]
                check_finite(policy, "policy")
                stored = sum(value.numel() for value in policy.values() if hasattr(value, "numel"))
                if not all(width >= 1 for width in net_arch) or sum(net_arch) > stored:
                    raise ValueError(f"net_arch {net_arch} does not fit the {stored} weights stored")
                inputs = int(np.prod(game.observation_shape))
                for outputs in (game.num_actions, 1):  # the two heads, bounded before they are built
                    check_mlp_sizes([inputs, *net_arch, outputs], f"ppo checkpoint {str(checkpoint)!r}", "retrain it")
                self.policy = build_policy(game, net_arch)
                self.policy.load_state_dict(payload["policy"])
        self.policy.set_training_mode(False)
        self.deterministic = deterministic
        self._torch = torch

    def act(self, game: Game, state: Any) -> Action:
        torch = self._torch
        player = game.current_player(state)
        observation = torch.as_tensor(game.observation(state, player)).unsqueeze(0)
        mask = game.legal_mask(state)
        with torch.no_grad():
            distribution = self.policy.get_distribution(observation, action_masks=mask[None])
            probs = distribution.distribution.probs[0].numpy()
        if self.deterministic:
            return int(np.argmax(np.where(mask, probs, -1.0)))
        probs = np.where(mask, probs, 0.0)
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))
