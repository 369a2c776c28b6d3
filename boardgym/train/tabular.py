"""The loop the tabular methods share: config, episodes with an epsilon schedule, TensorBoard,
evaluation, checkpoints and ``--resume``. ``qlearning.py`` and ``montecarlo.py`` only supply
how one episode updates the table.

An episode is either self-play (``--opponent self``: both seats read and update the same
table, each from its own point of view) or play against a fixed agent spec
(``--opponent random``, ``--opponent perfect``...), the learner's seat alternating.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.agents.registry import make_agent
from boardgym.agents.tabular import FORMAT, TabularAgent, ValueTable, check_game, game_signature
from boardgym.config import config_to_dict, log_hparams, make_writer, option, write_config
from boardgym.game import Game
from boardgym.runs import load_checkpoint, run_dir, save_checkpoint
from boardgym.train.evaluation import check_run_folder, eval_opponents, evaluate_agent, game_from_options
from boardgym.types import BoardgymError

Episode = Callable[[float], tuple[float, ...]]
"""Plays one episode at exploration rate epsilon, updating the table; returns the final
returns (per seat in self-play; ``(learner, opponent)`` against a fixed agent)."""

EpisodeFactory = Callable[[Game, ValueTable, random.Random, float, Agent | None], Callable[[float, int], tuple]]


@dataclass(frozen=True)
class TabularConfig:
    """Fields shared by the tabular methods (each method's ``Config`` sets its defaults)."""

    game: str = option("tictactoe", "game to train on: tictactoe, nim, quixo with size=3 (small games only)")
    game_params: str = option(
        "", "game parameters, space separated KEY=VALUE, e.g. 'size=3' or 'heaps=3,4,5 misere=true'"
    )
    opponent: str = option("self", "'self' for self-play, or the agent spec to train against, e.g. random")
    episodes: int = option(100_000, "training episodes (games)")
    alpha: float = option(0.5, "step size of the value updates")
    epsilon_start: float = option(1.0, "exploration rate of epsilon-greedy play at the start")
    epsilon_end: float = option(0.1, "exploration rate reached at the end of the decay")
    epsilon_decay: float = option(0.8, "fraction of the episodes over which epsilon decays linearly")
    seed: int = option(0, "seed of the exploration and of the evaluation games")
    eval_every: int = option(25_000, "episodes between evaluations against random and the baseline (0: end only)")
    eval_games: int = option(200, "games per evaluation and opponent, seats alternating")
    checkpoint_every: int = option(50_000, "episodes between checkpoints (0: end only)")
    run_name: str | None = option(None, "run folder name under runs/<game>/<method>/ (default: seed and time)")
    root: str = option("runs", "root folder of the runs")
    resume: bool = option(False, "continue the run in --run-name from its last checkpoint")
    progress: bool = option(True, "show a progress bar")


def epsilon_at(config: TabularConfig, episode: int) -> float:
    span = max(1, int(config.epsilon_decay * config.episodes))
    frac = min(1.0, episode / span)
    return config.epsilon_start + frac * (config.epsilon_end - config.epsilon_start)


def train_tabular(config: TabularConfig, method: str, make_episode: EpisodeFactory) -> Path:
    """Run ``method`` with ``config``; returns the path of the final checkpoint."""
    _check_config(config)
    game = game_from_options(config.game, config.game_params)
    folder = run_dir(game.name, method, config.run_name, config.seed, config.root)
    last_path, final_path = folder / "checkpoint.pt", folder / "final.pt"
    rand = random.Random(config.seed)
    table = ValueTable(game)
    done = 0
    check_run_folder(folder, config.resume, last_path)
    if config.resume:
        payload = load_checkpoint(last_path)
        check_game(payload, game, last_path)
        table = ValueTable.from_payload(game, payload, path=last_path)
        done = int(payload["episodes_done"])
        rand.setstate(_tuple_state(json.loads(payload["rng_state"])))
    write_config(folder / "config.json", config, method=method)

    opponent = None if config.opponent == "self" else make_agent(config.opponent, game, seed=config.seed + 1)
    episode = make_episode(game, table, rand, config.alpha, opponent)
    opponents = eval_opponents(game)
    writer = make_writer(folder)
    log_hparams(writer, config)

    def save(path: Path) -> None:
        payload = table.to_payload()
        payload.update(
            format=FORMAT,
            method=method,
            game_signature=game_signature(game),
            episodes_done=done,
            rng_state=json.dumps(rand.getstate()),
            config=json.dumps(config_to_dict(config)),
        )
        save_checkpoint(path, payload)

    def evaluate() -> dict[str, float]:
        save(last_path)
        agent = TabularAgent(game, seed=config.seed, checkpoint=last_path)
        scalars = evaluate_agent(game, agent, opponents, config.eval_games, seed=config.seed)
        for tag, value in scalars.items():
            writer.add_scalar(tag, value, done)
        return scalars

    bar = _progress(config, done)
    window = [0, 0, 0]  # learner (or first seat in self-play) wins, draws, losses since the last log
    log_every = max(1, min(1000, config.episodes // 100))
    try:
        while done < config.episodes:
            epsilon = epsilon_at(config, done)
            outcome = episode(epsilon, done)[0]
            window[0 if outcome > 0 else 1 if outcome == 0 else 2] += 1
            done += 1
            if done % log_every == 0 or done == config.episodes:
                games = sum(window)
                writer.add_scalar("train/epsilon", epsilon, done)
                writer.add_scalar("train/states", len(table), done)
                writer.add_scalar("train/win_rate", window[0] / games, done)
                writer.add_scalar("train/draw_rate", window[1] / games, done)
                window = [0, 0, 0]
                if bar is not None:
                    bar.update(games)
                    bar.set_postfix(states=len(table), eps=f"{epsilon:.2f}")
            if config.checkpoint_every and done % config.checkpoint_every == 0:
                save(last_path)
            if config.eval_every and done % config.eval_every == 0 and done < config.episodes:
                _report(bar, _eval_line(done, evaluate()))
        _report(bar, _eval_line(done, evaluate()))
        save(final_path)
    finally:
        if bar is not None:
            bar.close()
        writer.close()
    return final_path


def _report(bar: Any, line: str) -> None:
    if bar is not None:
        bar.write(line)
    else:
        print(line)


def _eval_line(done: int, scalars: dict[str, float]) -> str:
    parts = [
        f"{tag.removeprefix('eval/').replace('_rate', '')} {value:.1%}"
        for tag, value in scalars.items()
        if "draw" not in tag
    ]
    return f"episode {done}: " + ", ".join(parts)


def _progress(config: TabularConfig, done: int) -> Any:
    if not config.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=config.episodes, initial=done, unit="ep", dynamic_ncols=True)


def _check_config(config: TabularConfig) -> None:
    if config.episodes < 1:
        raise BoardgymError(f"--episodes {config.episodes} must be at least 1")
    if not 0 < config.alpha <= 1:
        raise BoardgymError(f"--alpha {config.alpha} must be in (0, 1]")
    for name in ("epsilon_start", "epsilon_end", "epsilon_decay"):
        value = getattr(config, name)
        if not 0 <= value <= 1:
            raise BoardgymError(f"--{name.replace('_', '-')} {value} must be between 0 and 1")
    if config.eval_games < 1:
        raise BoardgymError(f"--eval-games {config.eval_games} must be at least 1")


def _tuple_state(value: Any) -> Any:
    """JSON turns ``random.Random.getstate()``'s tuples into lists; turn them back."""
    return tuple(_tuple_state(v) for v in value) if isinstance(value, list) else value
