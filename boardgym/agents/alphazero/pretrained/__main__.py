"""Ship a trained network: ``python -m boardgym.agents.alphazero.pretrained runs/<game>/alphazero/<run>/final.pt``
writes it, in float16, as ``boardgym/agents/alphazero/pretrained/<game>.pt`` (what
``alphazero:pretrained=true`` loads once the game's ``GAMES`` entry names it with ``pretrained=``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from boardgym.agents.alphazero.agent import FORMAT, NETWORK_KEYS, network_from_payload
from boardgym.agents.alphazero.pretrained import shipped_file, to_float16
from boardgym.checkpoints import load_checkpoint, save_checkpoint
from boardgym.games import game_class
from boardgym.types import BoardgymError


def export(checkpoint: Path) -> Path:
    """Write the network of ``checkpoint`` (float16 tensors) where the package ships it."""
    payload = load_checkpoint(checkpoint, format=FORMAT, required=NETWORK_KEYS, method="alphazero")
    signature = json.loads(payload["game_signature"])
    game = game_class(signature["game"])(**signature["params"])
    network = network_from_payload(payload)
    out = shipped_file(game.name)
    shipped = {"architecture": network.architecture(), "state_dict": to_float16(network.state_dict())}
    return save_checkpoint(out, shipped, format=FORMAT, game=game)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m boardgym.agents.alphazero.pretrained", description=__doc__)
    parser.add_argument("checkpoint", type=Path, help="a final.pt or checkpoint.pt written by boardgym train alphazero")
    args = parser.parse_args(argv)
    try:
        out = export(args.checkpoint)
    except BoardgymError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
