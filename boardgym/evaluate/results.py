"""A tournament's folder (when ``run_tournament`` gets an ``out_dir``): its files, read and
written here and nowhere else.

``tournament.json`` (``SETTINGS_FILE``) holds the settings and ``results.jsonl``
(``RESULTS_FILE``) one line per finished game, appended as it comes (``ResultsLog``), so an
interrupted run keeps its games and ``resume=True`` plays only the missing ones
(``previous_games``). A resume with other settings is refused; asking for more games per
pairing extends a finished tournament: the first rounds keep their indices and seeds. A line
torn by a kill in the middle of a write is dropped, and the file rewritten without it, when the
run is resumed. With ``save_games=N`` the games of index below N also keep each move's time
and what its agent reported about it (value, visits...), and each is written as a game record
to ``games/game-<index>.json`` (``boardgym replay`` reads both), its opening-suite moves
marked as the opening.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from boardgym.evaluate.records import record_of_match
from boardgym.evaluate.schedule import PlayedGame, Tournament
from boardgym.game import Game
from boardgym.runs import atomic_write_text
from boardgym.types import BoardgymError

SETTINGS_FILE = "tournament.json"
RESULTS_FILE = "results.jsonl"


def load_tournament(out_dir: Path | str) -> Tournament:
    """The settings and readable games of a tournament folder (an unfinished one too)."""
    out_dir = Path(out_dir)
    settings_path = out_dir / SETTINGS_FILE
    if not settings_path.is_file():
        raise BoardgymError(f"{str(out_dir)!r} holds no {SETTINGS_FILE}; pass the folder of a `boardgym evaluate` run")
    settings = json.loads(settings_path.read_text())
    tournament = Tournament(
        settings["game"],
        {key: tuple(v) if isinstance(v, list) else v for key, v in settings["game_params"].items()},
        tuple(settings["agents"]),
        int(settings["games_per_pair"]),
        int(settings["seed"]),
        bool(settings["gauntlet"]),
        int(settings["num_players"]),
        opening_plies=int(settings.get("opening_plies", 0)),
    )
    tournament.games, _ = _read_results(out_dir / RESULTS_FILE)
    in_schedule = {fixture.index for fixture in tournament.schedule()}
    tournament.games = sorted((g for g in tournament.games if g.index in in_schedule), key=lambda g: g.index)
    return tournament


def saved_opening_plies(out_dir: Path | str) -> int | None:
    """The opening plies in the folder's settings (0 for a run from before opening suites);
    ``None`` when the folder holds no settings."""
    settings_path = Path(out_dir) / SETTINGS_FILE
    if not settings_path.is_file():
        return None
    return int(json.loads(settings_path.read_text()).get("opening_plies", 0))


def previous_games(out_dir: Path, tournament: Tournament, resume: bool) -> list[PlayedGame]:
    """The games already in the folder that ``tournament`` still schedules, after checking that
    they may be kept: without ``resume`` a folder with results is refused, and so is a resume
    whose settings differ (but for the games per pairing). A torn line is dropped from the file."""
    results_path = out_dir / RESULTS_FILE
    settings_path = out_dir / SETTINGS_FILE
    if not results_path.exists() or results_path.stat().st_size == 0:
        return []
    if not resume:
        raise BoardgymError(
            f"{str(out_dir)!r} already holds tournament results; pass --resume (resume=True) to finish "
            "or extend it, or choose another run name"
        )
    if settings_path.is_file():
        before = json.loads(settings_path.read_text())
        now = tournament.settings()
        before.setdefault("opening_plies", 0)  # runs from before opening suites
        changed = [key for key in now if key != "games_per_pair" and before.get(key) != now[key]]
        if changed:
            detail = ", ".join(f"{key} was {before.get(key)!r}, now {now[key]!r}" for key in changed)
            raise BoardgymError(
                f"cannot resume {str(out_dir)!r} with other settings ({detail}); rerun with the same "
                "game, agents and seed, or choose another run name"
            )
    games, unreadable = _read_results(results_path)
    if unreadable:  # a run killed mid-line: keep the good lines, drop the torn one
        atomic_write_text(results_path, "".join(played.to_json() + "\n" for played in games))
    in_schedule = {fixture.index for fixture in tournament.schedule()}
    return [played for played in games if played.index in in_schedule]


def write_settings(out_dir: Path, tournament: Tournament) -> None:
    """``tournament.json``, written whole (atomically)."""
    atomic_write_text(out_dir / SETTINGS_FILE, json.dumps(tournament.settings(), indent=2) + "\n")


class ResultsLog:
    """``results.jsonl`` open for appending (created if need be): each game a line, flushed
    at once; the first ``save_games`` games, when their moves are recorded, also as records."""

    def __init__(self, out_dir: Path, game: Game, save_games: int = 0, record_moves: bool = True) -> None:
        self.out_dir = out_dir
        self.game = game
        self.save_games = save_games if record_moves else 0
        self._handle: TextIO = open(out_dir / RESULTS_FILE, "a")

    def append(self, played: PlayedGame) -> None:
        self._handle.write(played.to_json() + "\n")
        self._handle.flush()
        if played.index < self.save_games:
            _save_game(self.out_dir, self.game, played)

    def close(self) -> None:
        self._handle.close()


def _read_results(path: Path) -> tuple[list[PlayedGame], int]:
    """The readable games in ``path`` (the last copy of an index wins) and the number of
    lines that could not be read."""
    games: dict[int, PlayedGame] = {}
    unreadable = 0
    if not path.is_file():
        return [], 0
    with open(path) as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                played = PlayedGame.from_json(line)
            except (ValueError, KeyError, TypeError):
                unreadable += 1
                continue
            games[played.index] = played
    return sorted(games.values(), key=lambda played: played.index), unreadable


def _save_game(out_dir: Path, game: Game, played: PlayedGame) -> None:
    record = played.record
    title = f"{out_dir.name}, game {played.index}"
    record_of_match(
        game, record.agents, record.moves, record.move_seconds, title, infos=record.move_infos, opening=record.opening
    ).save(out_dir / "games" / f"game-{played.index}.json")
