"""sb3-contrib's MaskablePPO against boardgym's built-in random opponent.

    python examples/sb3_vs_random.py --game tictactoe --timesteps 50000

The env is ``gym.make("boardgym/<Game>-v0", opponent="random")``: the opponent moves inside
the env, the learner's seat is drawn each episode, and MaskablePPO reads the legal moves from
``env.action_masks()``. The model is saved with SB3's own ``model.save`` and measured as the
``ppo:checkpoint=model.zip`` agent (boardgym reads the zip without unpickling it) in the
tournament ``boardgym evaluate`` plays (``boardgym.evaluate.measure``): seats alternated and,
because the model plays the same moves whatever its seed, each pair of games starting after the
same random opening moves (evaluate's opening suite, on by default; without it a deterministic
model replays a handful of games). The script prints that ``boardgym evaluate`` command, which
gives the same win rate; the win rates before and after training are the last line, as JSON.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym
from sb3_contrib import MaskablePPO

import boardgym  # noqa: F401  (registers the gym ids)
from boardgym import make_game
from boardgym.evaluate.measure import Measured, measure, report
from boardgym.games import GAMES


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tictactoe", help="a two-player game (boardgym list games)")
    parser.add_argument("--timesteps", type=int, default=50_000, help="learner moves to train for")
    parser.add_argument("--eval-games", type=int, default=200, help="games against random (as boardgym evaluate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="runs/examples/sb3_vs_random", help="folder for the model zip")
    args = parser.parse_args(argv)

    make_game(args.game)  # an unknown game is one sentence before anything trains
    env = gym.make(f"boardgym/{GAMES[args.game].gym_name}-v0", opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=args.seed, verbose=0)
    folder = Path(args.save)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.zip"

    def measured() -> Measured:
        model.save(path)
        return measure(args.game, f"ppo:checkpoint={path}", "random", args.eval_games, args.seed)

    before = measured()
    model.learn(args.timesteps)
    after = measured()
    return report(args.game, path, before, after, play=f"ppo:checkpoint={path}")


if __name__ == "__main__":
    main()
