"""The loop the tabular methods share: episodes under an epsilon schedule, the table's
checkpoints and its scalars; ``TrainingRun`` does the rest (run folder, resume, TensorBoard,
progress bar, measurement). ``qlearning.py`` and ``montecarlo.py`` only supply how one
episode updates the table.

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
from boardgym.agents.registry import make_agent, read_spec
from boardgym.agents.tabular import FORMAT, TabularAgent, ValueTable
from boardgym.config import option
from boardgym.game import Game
from boardgym.train.training_run import RunConfig, TrainingRun

Episode = Callable[[float], tuple[float, ...]]
"""Plays one episode at exploration rate epsilon, updating the table; returns the final
returns (per seat in self-play; ``(learner, opponent)`` against a fixed agent)."""

EpisodeFactory = Callable[[Game, ValueTable, random.Random, float, Agent | None], Callable[[float, int], tuple]]


@dataclass(frozen=True)
class TabularConfig(RunConfig):
    """Fields shared by the tabular methods (each method's ``Config`` sets its defaults)."""

    game: str = option("tictactoe", "game to train on: tictactoe, nim, quixo with size=3 (small games only)")
    eval_every: int = option(25_000, "episodes between measurements against random and the baseline (0: end only)")
    eval_games: int = option(200, "games per measurement and opponent, seats alternating")
    opponent: str = option("self", "'self' for self-play, or the agent spec to train against, e.g. random")
    episodes: int = option(100_000, "training episodes (games)", minimum=1)
    alpha: float = option(0.5, "step size of the value updates", above=0, maximum=1)
    epsilon_start: float = option(1.0, "exploration rate of epsilon-greedy play at the start", minimum=0, maximum=1)
    epsilon_end: float = option(0.1, "exploration rate reached at the end of the decay", minimum=0, maximum=1)
    epsilon_decay: float = option(
        0.8, "fraction of the episodes over which epsilon decays linearly", minimum=0, maximum=1
    )
    checkpoint_every: int = option(50_000, "episodes between checkpoints (0: end only)", minimum=0)

    def check(self) -> None:
        super().check()
        if self.opponent != "self":
            read_spec(self.opponent)


def epsilon_at(config: TabularConfig, episode: int) -> float:
    span = max(1, int(config.epsilon_decay * config.episodes))
    frac = min(1.0, episode / span)
    return config.epsilon_start + frac * (config.epsilon_end - config.epsilon_start)


def train_tabular(config: TabularConfig, method: str, make_episode: EpisodeFactory) -> Path:
    """Run ``method`` with ``config``; returns the path of the final checkpoint."""
    run = TrainingRun(config, method, format=FORMAT, total=config.episodes, unit="ep", resume_keys=("rng_state",))
    game = run.game
    opponent = None if config.opponent == "self" else make_agent(config.opponent, game, seed=config.seed + 1)
    with run:
        rand = random.Random(config.seed)
        table = ValueTable(game)
        if run.resumed is not None:
            with run.restoring():
                table = ValueTable.from_payload(game, run.resumed, path=run.checkpoint_path)
                rand.setstate(_tuple_state(json.loads(run.resumed["rng_state"])))
        episode = make_episode(game, table, rand, config.alpha, opponent)

        def payload() -> dict[str, Any]:
            return {**table.to_payload(), "rng_state": json.dumps(rand.getstate())}

        def measure() -> None:
            run.save(payload())
            run.measure(TabularAgent(game, seed=config.seed, checkpoint=run.checkpoint_path))

        window = [0, 0, 0]  # learner (or first seat in self-play) wins, draws, losses since the last log
        log_every = max(1, min(1000, config.episodes // 100))
        while run.step < config.episodes:
            epsilon = epsilon_at(config, run.step)
            outcome = episode(epsilon, run.step)[0]
            window[0 if outcome > 0 else 1 if outcome == 0 else 2] += 1
            run.step += 1
            run.games += 1
            if run.step % log_every == 0 or run.step == config.episodes:
                games = sum(window)
                run.log(
                    {
                        "train/epsilon": epsilon,
                        "train/states": len(table),
                        "train/win_rate": window[0] / games,
                        "train/draw_rate": window[1] / games,
                    }
                )
                window = [0, 0, 0]
                run.advance(0, states=len(table), eps=f"{epsilon:.2f}")
            if run.due(config.checkpoint_every):
                run.save(payload())
            if run.due(config.eval_every) and run.step < config.episodes:
                measure()
        measure()
        return run.finish(payload())


def _tuple_state(value: Any) -> Any:
    """JSON turns ``random.Random.getstate()``'s tuples into lists; turn them back."""
    return tuple(_tuple_state(v) for v in value) if isinstance(value, list) else value
