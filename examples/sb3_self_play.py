"""sb3-contrib's MaskablePPO in self-play: the opponent inside the env is the learner's own
latest snapshot.

    python examples/sb3_self_play.py --game connect_four --rounds 10 --steps-per-round 20000

Any boardgym agent can sit inside ``gym.make("boardgym/<Game>-v0", opponent=...)``, so the
opponent here is an agent that plays whichever policy it was last handed: random at first,
then, after each round of training, the model just saved (``ppo:checkpoint=model.zip``,
sampling its moves so that games vary). The learner's win rate against random before and
after all rounds, measured as ``boardgym evaluate`` measures it (``boardgym.evaluate.measure``:
seats alternated, evaluate's opening suite), is the last line, as JSON, after the
``boardgym evaluate`` command that ranks the last snapshot with the same games.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import gymnasium as gym
from sb3_contrib import MaskablePPO

import boardgym  # noqa: F401  (registers the gym ids)
from boardgym import make_agent, make_game
from boardgym.agents.base import Agent, BaseAgent
from boardgym.evaluate.measure import measure, report
from boardgym.game import Game
from boardgym.games import GAMES


class LatestSnapshot(BaseAgent):
    """Plays the policy it was last given (``random`` until then)."""

    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.policy: Agent = make_agent("random", game, seed=seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.policy.reset(seed=seed)

    def act(self, game: Game, state: Any) -> int:
        return self.policy.act(game, state)


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tictactoe", help="a two-player game (boardgym list games)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of training, each against the last snapshot")
    parser.add_argument("--steps-per-round", type=int, default=20_000)
    parser.add_argument("--eval-games", type=int, default=200, help="games against random (as boardgym evaluate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="runs/examples/sb3_self_play", help="folder for the snapshots")
    args = parser.parse_args(argv)

    game = make_game(args.game)
    opponent = LatestSnapshot(game, seed=args.seed)
    env = gym.make(f"boardgym/{GAMES[args.game].gym_name}-v0", opponent=opponent)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=args.seed, verbose=0)
    folder = Path(args.save)
    folder.mkdir(parents=True, exist_ok=True)

    def snapshot(index: int) -> Path:
        path = folder / f"round{index}.zip"
        model.save(path)
        return path

    first = snapshot(0)
    before = measure(args.game, f"ppo:checkpoint={first}", "random", args.eval_games, args.seed)
    for index in range(1, args.rounds + 1):
        model.learn(args.steps_per_round, reset_num_timesteps=False)
        path = snapshot(index)
        opponent.policy = make_agent(f"ppo:checkpoint={path},deterministic=false", game, seed=args.seed + index)
        print(f"round {index}: the opponent is now {path.name}")
    after = measure(args.game, f"ppo:checkpoint={path}", "random", args.eval_games, args.seed)
    return report(args.game, path, before, after)


if __name__ == "__main__":
    main()
