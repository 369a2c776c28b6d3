"""Game records: one game's moves, who played them and how long each took, as a JSON file
that ``boardgym replay`` turns into an HTML page and ``boardgym serve`` lets a player download.

A record file (``"format": "boardgym-game-v1"``)::

    {"format": "boardgym-game-v1", "game": "nim", "params": {"heaps": [3, 4, 5]},
     "players": ["you", "mcts:simulations=800"],
     "moves": [{"action": 5, "move": "2:3", "player": 0, "seconds": 1.8},
               {"action": 0, "move": "1:1", "player": 1, "seconds": 0.21, "info": {"value": 0.4}}],
     "returns": [1.0, -1.0], "result": "player 0 wins (normal play)"}

``action`` is what counts; ``move`` (the typed form) and ``player`` are there for people and
are recomputed on reading. ``seconds`` may be null where nobody timed the move, ``info`` is
the agent's ``last_info`` (see ``boardgym.agents.base``: its search figures, value, visits,
depth), ``returns`` is null for a game that has not ended. A game of a tournament with an
opening suite has ``"opening": k``: its first ``k`` moves came from the suite, not from the
agents (each is marked ``"opening": true``, with no time).

``load_record`` reads such a file, or one game of a tournament's ``results.jsonl`` (with the
``tournament.json`` beside it for the game and its parameters): ``boardgym evaluate
--save-games N`` records the per-move times of the first N games there and writes each of
them, with what the agents reported about each move, to ``games/game-<index>.json`` in the
run folder.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.game import Game
from boardgym.games import make_game
from boardgym.runs import atomic_write_text, jsonable
from boardgym.types import Action, BoardgymError, IllegalActionError

RECORD_FORMAT = "boardgym-game-v1"


@dataclass(frozen=True)
class GameRecord:
    """One game (see the module docstring for the file). ``seconds[i]`` and ``infos[i]``
    belong to ``moves[i]``; both tuples are as long as ``moves``. The first ``opening``
    moves came from an opening suite."""

    game: str
    params: dict[str, Any]
    players: tuple[str, ...]
    moves: tuple[Action, ...]
    seconds: tuple[float | None, ...] = ()
    infos: tuple[dict[str, Any], ...] = ()
    returns: tuple[float, ...] | None = None
    title: str = ""
    opening: int = 0

    def __post_init__(self) -> None:
        if not self.seconds:
            object.__setattr__(self, "seconds", (None,) * len(self.moves))
        if not self.infos:
            object.__setattr__(self, "infos", ({},) * len(self.moves))
        if len(self.seconds) != len(self.moves) or len(self.infos) != len(self.moves):
            raise BoardgymError("a game record needs one time and one info entry per move")
        if not 0 <= self.opening <= len(self.moves):
            raise BoardgymError(
                f"a game record's opening ({self.opening} moves) must be 0 to its {len(self.moves)} moves"
            )

    def make_game(self) -> Game:
        return make_game(self.game, **self.params)

    def positions(self, game: Game | None = None) -> list[Any]:
        """The states from the start to the end: ``len(moves) + 1`` of them. A move the rules
        refuse is named."""
        game = game or self.make_game()
        state = game.initial_state()
        states = [state]
        for number, action in enumerate(self.moves, 1):
            try:
                state = game.apply(state, action)
            except IllegalActionError as error:
                raise BoardgymError(
                    f"move {number} of the record ({action}) is not legal in {game.name}: {error}"
                ) from None
            states.append(state)
        return states

    def to_dict(self) -> dict[str, Any]:
        game = self.make_game()
        states = self.positions(game)
        moves = []
        for i, action in enumerate(self.moves):
            move: dict[str, Any] = {
                "action": int(action),
                "move": game.action_to_str(states[i], action),
                "player": int(game.current_player(states[i])),
                "seconds": None if i < self.opening else self.seconds[i],
            }
            if i < self.opening:
                move["opening"] = True
            if self.infos[i]:
                move["info"] = jsonable(self.infos[i])
            moves.append(move)
        final = states[-1]
        returns = self.returns
        if returns is None and game.is_terminal(final):
            returns = tuple(float(r) for r in game.returns(final))
        return {
            "format": RECORD_FORMAT,
            "game": self.game,
            "params": jsonable(self.params),
            "players": list(self.players),
            "title": self.title,
            **({"opening": self.opening} if self.opening else {}),
            "moves": moves,
            "returns": None if returns is None else list(returns),
            "result": _result(game, final),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def save(self, path: Path | str) -> Path:
        atomic_write_text(path, self.to_json() + "\n")
        return Path(path)

    @classmethod
    def from_dict(cls, values: Any, source: str = "the record") -> GameRecord:
        """Read a record, refusing with one sentence what does not fit the format."""
        if not isinstance(values, dict):
            raise BoardgymError(f"{source} is not a game record: expected a JSON object")
        if values.get("format") != RECORD_FORMAT:
            raise BoardgymError(
                f"{source} is not a {RECORD_FORMAT} game record (format {values.get('format')!r}); "
                "pass a file saved by `boardgym serve` or `boardgym evaluate --save-games`, or a results.jsonl"
            )
        game, params, players, moves = (values.get(key) for key in ("game", "params", "players", "moves"))
        if not isinstance(game, str) or not isinstance(params, dict) or not isinstance(moves, list):
            raise BoardgymError(f"{source}: 'game' must be a name, 'params' an object and 'moves' a list")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise BoardgymError(f"{source}: 'players' must be a list of names")
        actions, seconds, infos = [], [], []
        for number, move in enumerate(moves, 1):
            action = move.get("action") if isinstance(move, dict) else move
            if isinstance(action, bool) or not isinstance(action, int):
                raise BoardgymError(f"{source}: move {number} has no integer 'action'")
            time = move.get("seconds") if isinstance(move, dict) else None
            if time is not None and (
                not isinstance(time, (int, float)) or isinstance(time, bool) or not math.isfinite(time)
            ):
                raise BoardgymError(f"{source}: move {number} has seconds={time!r}; give a number or null")
            info = move.get("info", {}) if isinstance(move, dict) else {}
            actions.append(action)
            seconds.append(None if time is None else float(time))
            infos.append(info if isinstance(info, dict) else {})
        returns = values.get("returns")
        opening = values.get("opening", 0)
        if isinstance(opening, bool) or not isinstance(opening, int) or not 0 <= opening <= len(actions):
            raise BoardgymError(f"{source}: 'opening' must be a number of moves from 0 to {len(actions)}")
        record = cls(
            game,
            {key: tuple(v) if isinstance(v, list) else v for key, v in params.items()},
            tuple(players),
            tuple(actions),
            tuple(seconds),
            tuple(infos),
            None if not isinstance(returns, list) else tuple(float(r) for r in returns),
            str(values.get("title", "")),
            opening,
        )
        record.positions()  # the moves must be legal
        return record


def load_record(path: Path | str, index: int | None = None) -> GameRecord:
    """The record in ``path``: a record ``.json``, or game ``index`` (the lowest when None) of
    a tournament's ``results.jsonl``."""
    path = Path(path)
    if not path.is_file():
        raise BoardgymError(f"{str(path)!r} does not exist; pass a game record .json or a tournament's results.jsonl")
    if path.suffix == ".jsonl":
        return _from_results(path, index)
    if index is not None:
        raise BoardgymError(f"--game {index} picks a game of a results.jsonl; {str(path)!r} holds one game")
    try:
        values = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError):
        raise BoardgymError(f"{str(path)!r} is not JSON; pass a game record .json or a results.jsonl") from None
    return GameRecord.from_dict(values, repr(str(path)))


def record_of_match(
    game: Game,
    players: Sequence[str],
    moves: Sequence[Action],
    seconds: Sequence[float] = (),
    title: str = "",
    *,
    infos: Sequence[dict[str, Any]] = (),
    opening: int = 0,
) -> GameRecord:
    """A record of a game played with ``game`` (its name and parameters are kept); ``infos``
    what the agents reported about each move, ``opening`` how many first moves came from an
    opening suite."""
    return GameRecord(
        game.name,
        dict(game.params()),
        tuple(players),
        tuple(int(a) for a in moves),
        tuple(seconds),
        tuple(dict(info) for info in infos),
        title=title,
        opening=opening,
    )


def _from_results(path: Path, index: int | None) -> GameRecord:
    settings_path = path.parent / "tournament.json"
    if not settings_path.is_file():
        raise BoardgymError(
            f"{str(path)!r} has no tournament.json beside it; pass the results.jsonl of an evaluate run"
        )
    try:
        settings = json.loads(settings_path.read_text())
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except ValueError:
        raise BoardgymError(f"{str(path)!r} or its tournament.json is not valid JSON") from None
    games = {int(line["index"]): line for line in lines if isinstance(line, dict) and "index" in line}
    if not games:
        raise BoardgymError(f"{str(path)!r} holds no finished game yet")
    if index is None:
        index = min(games)
    if index not in games:
        shown = ", ".join(str(i) for i in sorted(games)[:10]) + (" ..." if len(games) > 10 else "")
        raise BoardgymError(f"{str(path)!r} has no game {index}; its games are {shown}")
    line = games[index]
    moves = line.get("moves") or []
    if line.get("num_moves") and not moves:
        raise BoardgymError(f"game {index} of {str(path)!r} was played without recording its moves")
    times = line.get("move_seconds") or [None] * len(moves)
    infos = line.get("move_infos") or []
    if len(infos) != len(moves):
        infos = [{}] * len(moves)
    params = {key: tuple(v) if isinstance(v, list) else v for key, v in settings.get("game_params", {}).items()}
    return GameRecord(
        settings["game"],
        params,
        tuple(line["agents"]),
        tuple(int(a) for a in moves),
        tuple(times),
        tuple(info if isinstance(info, dict) else {} for info in infos),
        title=f"{path.parent.name}, game {index}",
        opening=min(int(line.get("opening", 0)), len(moves)),
    )


def _result(game: Game, state: Any) -> str:
    if not game.is_terminal(state):
        return "unfinished"
    returns = game.returns(state)
    if len(returns) == 1:
        return f"return {returns[0]:g}"
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    return "draw" if len(winners) != 1 else f"player {winners[0]} wins"
