"""The files of an AlphaZero run that carry its state from one command to the next.

After every iteration the run folder gets a pair (``save_iteration``): ``replay-<iteration>.pt``
(the replay buffer, format ``REPLAY_FORMAT``) written first, then ``checkpoint.pt`` naming it
(``replay_file``, ``replay_step``), then the older replay files removed, so that a run killed
anywhere leaves a checkpoint whose replay file is there. ``--resume`` reads the pair back
(``restore``; runs written before the pairs were named have one ``replay.pt``, which still
loads). A new run may start from another run's files: its weights (``--init``,
``initial_weights``) and its replay rows (``--replay``, ``replay_rows``), both read and
checked before the run folder opens.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.agent import NETWORK_KEYS, checkpoint_payload, load_network, network_from_payload
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network
from boardgym.agents.alphazero.pretrained import pretrained_file
from boardgym.checkpoints import load_checkpoint, save_checkpoint
from boardgym.game import Game
from boardgym.train.alphazero.buffer import ReplayBuffer
from boardgym.train.alphazero.config import METHOD, Config
from boardgym.train.training_run import TrainingRun
from boardgym.types import BoardgymError

REPLAY_FORMAT = "boardgym.alphazero-replay/1"
REPLAY_NAME = re.compile(r"replay-\d+\.pt")
LEGACY_REPLAY = "replay.pt"  # the one replay file of runs written before the pairs were named
RESUME_KEYS = (*NETWORK_KEYS, "optimizer", "previous_state_dict", "history", "rng")


def save_iteration(
    run: TrainingRun,
    step: int,
    buffer: ReplayBuffer,
    network: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    previous: AlphaZeroNet,
    history: dict[str, Any],
    rng: np.random.Generator,
) -> None:
    """The resumable state after iteration ``step``: its replay file and ``checkpoint.pt``."""
    # The pair stays consistent however the run is killed: this iteration's replay file
    # first, then checkpoint.pt naming it, then the replay files nothing names any more.
    replay_file = f"replay-{step}.pt"
    save_checkpoint(
        run.folder / replay_file, {**buffer.state_dict(), "step": step}, format=REPLAY_FORMAT, game=run.game
    )
    payload = checkpoint_payload(
        network,
        optimizer=optimizer.state_dict(),
        previous_state_dict={k: v.detach().cpu() for k, v in previous.state_dict().items()},
        history=json.dumps(history),
        rng=json.dumps(rng.bit_generator.state),
        replay_step=step,
        replay_file=replay_file,
    )
    run.save(payload)
    remove_replays(run.folder, keep=replay_file)


def restore(
    run: TrainingRun,
    network: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    rng: np.random.Generator,
    device: torch.device,
) -> tuple[dict[str, Any], AlphaZeroNet]:
    """Load the resumed checkpoint into ``network``, ``optimizer``, ``rng`` and (from the
    replay file it names, or the older ``replay.pt`` when it pairs with the checkpoint)
    ``buffer``; returns the Elo history and the previous measurement's network."""
    replay_path = run.folder / LEGACY_REPLAY
    payload = run.resumed or {}
    saved = network_from_payload(payload, device)
    if saved.architecture() != network.architecture():
        raise BoardgymError(
            f"cannot resume {str(run.checkpoint_path)!r}: it holds a network of {saved.architecture()}, "
            f"but this config asks for {network.architecture()}; resume with the run's own options"
        )
    network.load_state_dict(saved.state_dict())
    optimizer.load_state_dict(payload["optimizer"])
    previous = copy.deepcopy(network)
    previous.load_state_dict(payload["previous_state_dict"])
    rng.bit_generator.state = json.loads(payload["rng"])
    named = payload.get("replay_file")
    if named is not None:  # the replay file of the checkpoint's own iteration
        if not isinstance(named, str) or not REPLAY_NAME.fullmatch(named):
            raise ValueError(f"replay_file {named!r} is not a replay file name")
        replay_path = run.folder / named
        if not replay_path.is_file():
            raise BoardgymError(
                f"--resume: {str(run.checkpoint_path)!r} pairs with {named}, which is not in the run folder "
                "(deleted or not copied); put it back, or start a new run under another --run-name"
            )
    if replay_path.is_file():
        replay = load_checkpoint(replay_path, what="replay buffer", method=METHOD, required=("planes", "added"))
        if replay.get("format") not in (None, REPLAY_FORMAT):  # None: written before replay files were stamped
            raise BoardgymError(
                f"replay buffer {str(replay_path)!r} is not a {REPLAY_FORMAT} file; delete it to resume with an "
                "empty buffer"
            )
        paired = payload.get("replay_step")
        if named is not None and replay.get("step") != paired:
            raise BoardgymError(
                f"replay buffer {str(replay_path)!r} is of iteration {replay.get('step')}, but checkpoint.pt pairs "
                f"with iteration {paired}: the file was changed; copy the run folder again or start a new run"
            )
        if paired is not None and replay.get("step") != paired:
            raise BoardgymError(
                f"replay buffer {str(replay_path)!r} is of iteration {replay.get('step')}, but checkpoint.pt pairs "
                f"with iteration {paired} (the run stopped between writing them); delete replay.pt to resume with "
                "an empty buffer"
            )
        buffer.load_state_dict(replay, source=f"replay buffer {str(replay_path)!r}")
    return json.loads(payload["history"]), previous.eval()


def replay_rows(config: Config, game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of the ``--replay`` file (planes, policies, legal masks, values), checked
    against ``game``; read before the run folder opens."""
    path = Path(str(config.replay))
    saved = load_checkpoint(
        path, what="replay buffer", method=METHOD, game=game, required=("planes", "policy", "legal", "value")
    )
    if saved.get("format") not in (None, REPLAY_FORMAT):
        raise BoardgymError(f"--replay {str(path)!r} is not a {REPLAY_FORMAT} file; pass a run's replay-N.pt")
    try:
        planes = saved["planes"].float().numpy()
        policy, legal, value = (
            saved["policy"].float().numpy(),
            saved["legal"].bool().numpy(),
            saved["value"].float().numpy(),
        )
    except (AttributeError, TypeError) as error:
        raise BoardgymError(
            f"--replay {str(path)!r}: its rows are not tensors ({error}); pass a run's replay-N.pt"
        ) from None
    rows = len(value)
    shapes_ok = (
        planes.shape == (rows, *game.observation_shape)
        and policy.shape == legal.shape == (rows, game.num_actions)
        and value.shape == (rows,)
    )
    if not shapes_ok or rows == 0:
        raise BoardgymError(
            f"--replay {str(path)!r} holds {rows} rows of planes {tuple(planes.shape[1:])} and policies "
            f"{tuple(policy.shape[1:])}; a {game.name} replay has planes {game.observation_shape} and "
            f"{game.num_actions} moves: pass a replay file of a {game.name} run"
        )
    return planes, policy, legal, value


def initial_weights(config: Config, game: Game, device: torch.device) -> dict[str, torch.Tensor]:
    """The weights named by ``--init`` (``pretrained`` or a checkpoint path), checked against
    the network this config builds."""
    init = str(config.init)
    path = pretrained_file(game) if init == "pretrained" else Path(init)
    saved = load_network(path, game, device=device)
    wanted = build_network(game, blocks=config.blocks, channels=config.channels, value_hidden=config.value_hidden)
    if saved.architecture() != wanted.architecture():
        raise BoardgymError(
            f"--init {init}: {str(path)!r} holds a network of {saved.architecture()}, but this run asks for "
            f"{wanted.architecture()}; pass the matching --blocks, --channels and --value-hidden"
        )
    return saved.state_dict()


def remove_replays(folder: Path, keep: str) -> None:
    """Delete the replay files of earlier iterations (and the older single ``replay.pt``)."""
    for path in folder.iterdir():
        if path.name != keep and (path.name == LEGACY_REPLAY or REPLAY_NAME.fullmatch(path.name)):
            path.unlink(missing_ok=True)
