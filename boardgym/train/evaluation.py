"""What the training scripts share beyond ``common``: the game a config names, the run
folder check for ``--resume``, and periodic evaluation during training: a learner against fixed opponents, seats swapped.

Every training script logs ``eval/win_rate_vs_<name>``, ``eval/draw_rate_vs_<name>`` and
``eval/loss_rate_vs_<name>`` for ``random`` and for the strongest baseline the game has
(``baseline_spec``), through ``boardgym.evaluate.match.play_games``. These are quick
in-process checks; ``boardgym evaluate`` measures a finished agent properly.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.agents.registry import AGENTS, make_agent
from boardgym.evaluate.match import play_games
from boardgym.game import Game
from boardgym.games import make_game, parse_game_params
from boardgym.types import BoardgymError


def check_run_folder(folder: Path, resume: bool, resume_from: Path) -> None:
    """Refuse to resume a run without ``resume_from``, and to start a new run over a folder
    that already holds one (``resume_from`` or ``final.pt``)."""
    if resume and not resume_from.exists():
        raise BoardgymError(f"--resume: no {resume_from.name} in {str(folder)!r}; check --run-name or drop --resume")
    if not resume and (resume_from.exists() or (folder / "final.pt").exists()):
        raise BoardgymError(
            f"run folder {str(folder)!r} already holds a run; pass --resume to continue it or another --run-name"
        )


def game_from_options(name: str, game_params: str) -> Game:
    """The game a training config names: ``--game quixo --game-params 'size=3'`` (items
    separated by spaces or ';', values as in ``boardgym play -p``)."""
    return make_game(name, **parse_game_params([item for item in re.split(r"[;\s]+", game_params) if item]))


def baseline_spec(game: Game) -> str | None:
    """The strongest cheap opponent for ``game``: ``perfect`` where exhaustive search is cheap,
    else shallow ``minimax`` where that agent exists; None if only ``random`` is available."""
    if getattr(game, "solvable_by_search", False) and game.num_players == 2:
        return "perfect"
    if "minimax" in AGENTS:
        return "minimax:depth=2"
    return None


def evaluate_agent(
    game: Game, agent: Agent, opponents: dict[str, Agent | str], games: int, seed: int = 0
) -> dict[str, float]:
    """``eval/...`` scalars of ``agent`` against each named opponent."""
    scalars: dict[str, float] = {}
    for index, (name, opponent) in enumerate(opponents.items()):
        summary = play_games(game, agent, opponent, games, seed=seed + index)
        scalars[f"eval/win_rate_vs_{name}"] = summary.wins / summary.games
        scalars[f"eval/draw_rate_vs_{name}"] = summary.draws / summary.games
        scalars[f"eval/loss_rate_vs_{name}"] = summary.losses / summary.games
    return scalars


def eval_opponents(game: Game, extra: dict[str, str] | None = None) -> dict[str, Any]:
    """``{"random": "random", "<baseline>": spec}``: the fields every script evaluates against."""
    opponents: dict[str, Any] = {"random": "random"}
    baseline = baseline_spec(game)
    if baseline is not None:
        opponents[baseline.partition(":")[0]] = make_agent(baseline, game, seed=0)
    opponents.update(extra or {})
    return opponents
