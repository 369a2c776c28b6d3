"""One agent against one opponent, measured exactly as ``boardgym evaluate`` measures it.

A script that trains a model measures it with ``measure(game, agent, opponent, games, seed)``
(the live model as an agent object, or the saved one as a spec) and prints
``Measured.command``: the ``boardgym evaluate`` command that ranks the saved model. Both play
the same tournament: the same schedule, seats alternated, the same seeds and the same opening
suite (``openings.py``: on by default when either agent plays the same moves whatever its seed,
so that a deterministic model is not measured on one game replayed), so they give the same win
rate; ``Measured.describe()`` says which openings it was measured on. ``report`` prints what
every example prints at its end: the model's win rate, the command that ranks it and the
results as one JSON line.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.evaluate.tournament import run_tournament
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class Measured:
    """The first agent's results against the second, and how they were measured."""

    wins: int
    draws: int
    losses: int
    opening_plies: int
    command: str
    """The ``boardgym evaluate`` command that plays the same games with the saved model."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    def describe(self) -> str:
        """The win rate and the games it was measured on, in one sentence."""
        openings = (
            f"each pair of games (seats swapped) starts after the same {self.opening_plies} random opening moves, "
            "as `boardgym evaluate` plays by default (--openings off: from the start)"
            if self.opening_plies
            else "every game from the start position, seats alternated"
        )
        return (
            f"win rate {self.win_rate:.3f} ({self.wins} wins, {self.draws} draws, {self.losses} losses in "
            f"{self.games} games; {openings})"
        )


def measure(
    game: str,
    agent: str | Agent,
    opponent: str = "random",
    games: int = 200,
    seed: int = 0,
    *,
    spec: str | None = None,
    game_params: dict[str, Any] | None = None,
    openings: str = "auto",
) -> Measured:
    """``games`` games of ``agent`` against ``opponent`` on ``game``, the tournament ``boardgym
    evaluate GAME --agents SPEC OPPONENT --games GAMES --seed SEED`` plays, in this process.
    ``spec`` is the agent spec of the saved model for the command (default: ``agent`` when it
    is a spec string)."""
    spec = spec if spec is not None else agent if isinstance(agent, str) else None
    if spec is None:
        raise BoardgymError("measure() needs spec=, the agent spec that loads the saved model, to print its command")
    tournament = run_tournament(
        game,
        [agent, opponent],
        games,
        workers=1,
        seed=seed,
        game_params=game_params,
        progress=False,
        record_moves=False,
        openings=openings,
    )
    wins = draws = losses = 0
    for played in tournament.games:
        winner = played.record.winner
        if winner not in (0, 1):
            draws += 1
        elif played.seats[winner] == 0:
            wins += 1
        else:
            losses += 1
    return Measured(
        wins,
        draws,
        losses,
        tournament.opening_plies,
        evaluate_command(game, spec, opponent, games, seed, game_params, openings),
    )


def evaluate_command(
    game: str,
    spec: str,
    opponent: str,
    games: int,
    seed: int,
    game_params: dict[str, Any] | None = None,
    openings: str = "auto",
) -> str:
    """The ``boardgym evaluate`` command line of ``measure``'s tournament."""
    words = ["boardgym", "evaluate", game]
    for key, value in (game_params or {}).items():
        text = ",".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value)
        words += ["-p", f"{key}={text}"]
    words += ["--agents", spec, opponent, "--games", str(games), "--seed", str(seed)]
    if openings != "auto":
        words += ["--openings", openings]
    return shlex.join(words)


def report(
    game: str,
    path: Path | str,
    before: Measured,
    after: Measured,
    *,
    play: str | None = None,
    opponent: str = "random",
    **extra: float,
) -> dict[str, float | str]:
    """Print the figures of a model trained on ``game`` as the examples do and return them:
    where it is saved and how to play it (``play``: its agent spec, when given), its win rate against
    ``opponent`` after training, the ``boardgym evaluate`` command that ranks it, then the
    results (win rates before and after, ``extra`` figures, the model and the command) as one
    JSON line, the last line printed."""
    if play is not None:
        print(f"model: {path} (play it: boardgym play {game} --opponent {play})")
    print(f"against {opponent}: {after.describe()}")
    print(f"the same games, ranked by boardgym: {after.command}")
    results: dict[str, float | str] = {
        "win_rate_before": before.win_rate,
        "win_rate_after": after.win_rate,
        **extra,
        "model": str(path),
        "evaluate": after.command,
    }
    print(json.dumps(results))
    return results
