"""How well a Connect Four network knows solved positions, without search.

    python benchmarks/network_vs_solver.py NETWORK [NETWORK ...] [--positions FILE]

NETWORK: ``pretrained`` (the shipped network) or an alphazero checkpoint (``final.pt``,
``checkpoint.pt``). FILE: a solved position set (default: the shipped grading set;
``runs/connect_four/held_out_v1.txt`` from ``build_connect_four_grade_set.py --held-out``).
For each network, one markdown row over the set's positions:

- policy picks a best move: the network's most likely legal move keeps the position's value;
- value picks a best move: the move whose resulting position the value head rates best
  (a finished game counts as its result) keeps it;
- value error: the mean squared difference between the value head's rating of each resulting
  position (for the player who moved) and the solver's 1 / 0 / -1.

Search hides how much of an agent's strength is its network's; this separates the two heads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from boardgym.agents.alphazero.agent import load_network
from boardgym.agents.alphazero.pretrained import pretrained_file
from boardgym.evaluate.grade_sets import CONNECT_FOUR_FILE, read_connect_four_set
from boardgym.games.connect_four import ConnectFour
from boardgym.types import BoardgymError


def measure(path: Path, positions_file: Path) -> tuple[int, int, float, int]:
    """(policy picks, value picks, value error, positions) of the network in ``path``."""
    game = ConnectFour()
    network = load_network(path, game)
    positions = read_connect_four_set(positions_file)
    policy_picks = value_picks = 0
    errors: list[float] = []
    for position in positions:
        mover = game.current_player(position.state)
        planes = [game.observation(position.state, mover)]
        children = {column: game.apply(position.state, column) for column in position.values}
        playing = [c for c, child in children.items() if not game.is_terminal(child)]
        planes += [game.observation(children[c], game.current_player(children[c])) for c in playing]
        with torch.no_grad():
            logits, values = network(torch.from_numpy(np.stack(planes).astype(np.float32)))
        rated = {c: float(np.sign(game.returns(child)[mover])) for c, child in children.items() if c not in playing}
        rated |= {c: -float(values[1 + i]) for i, c in enumerate(playing)}
        legal = list(position.values)
        policy_move = legal[int(torch.argmax(logits[0, legal]))]
        policy_picks += position.values[policy_move] == position.best
        value_picks += position.values[max(rated, key=lambda c: rated[c])] == position.best
        errors += [(rated[c] - position.values[c]) ** 2 for c in playing]
    return policy_picks, value_picks, float(np.mean(errors)) if errors else 0.0, len(positions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("networks", nargs="+", help="pretrained, or the path of an alphazero checkpoint")
    parser.add_argument("--positions", type=Path, default=CONNECT_FOUR_FILE, help="a solved position set")
    args = parser.parse_args(argv)
    print("| network | policy picks a best move | value picks a best move | value error |")
    print("|---|---:|---:|---:|")
    for name in args.networks:
        if not name.strip():
            parser.error("a network name is empty; pass pretrained or the path of an alphazero checkpoint")
        path = pretrained_file(ConnectFour()) if name == "pretrained" else Path(name)
        try:
            policy, value, error, count = measure(path, args.positions)
        except BoardgymError as error_message:
            parser.error(str(error_message))
        print(f"| {name} | {policy} of {count} | {value} of {count} | {error:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
