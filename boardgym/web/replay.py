"""Self-contained HTML replays of game records: ``boardgym replay FILE.json|results.jsonl``.

The page holds every position's picture (``boardgym.draw``, last move marked), the moves with
their times and what the agents found (value, simulations), the moves of an opening suite
marked as the opening rather than as the agents', buttons and keys to step through them; it
loads nothing from anywhere, so it can be mailed or opened from disk.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from boardgym.draw import svg
from boardgym.evaluate.records import GameRecord
from boardgym.runs import atomic_write_text

MARKER = "/*REPLAY_DATA*/null"


def replay_html(record: GameRecord) -> str:
    """The replay page of ``record``."""
    game = record.make_game()
    states = record.positions(game)
    frames = [svg(game, state, record.moves[:i], targets=False) for i, state in enumerate(states)]
    moves = []
    for i, action in enumerate(record.moves):
        player = game.current_player(states[i])
        opening = i < record.opening
        moves.append(
            {
                "number": i + 1,
                "player_name": player_name(record.players, player),
                "move": game.action_to_str(states[i], action),
                "seconds": None if opening else record.seconds[i],
                "info": info_text(record.infos[i]),
                "opening": opening,
            }
        )
    players = " vs ".join(f"{name} (player {seat})" for seat, name in enumerate(record.players))
    if record.opening:
        players += f"; the first {record.opening} moves from the opening suite"
    params = ", ".join(f"{key}={value}" for key, value in game.params().items())
    data = {
        "title": f"{game.name}" + (f" ({params})" if params else "") + (f": {record.title}" if record.title else ""),
        "subtitle": f"{players}; {len(record.moves)} moves",
        "frames": frames,
        "moves": moves,
        "start": "start",
    }
    template = resources.files("boardgym.web").joinpath("static/replay.html").read_text()
    # JSON inside <script>: "</" would close the element early.
    return template.replace(MARKER, json.dumps(data).replace("</", "<\\/"))


def write_replay(record: GameRecord, path: Path | str) -> Path:
    atomic_write_text(path, replay_html(record))
    return Path(path)


def player_name(players: tuple[str, ...], seat: int) -> str:
    return players[seat] if 0 <= seat < len(players) else f"player {seat}"


def info_text(info: dict[str, Any]) -> str:
    """A line about what an agent found: ``value +0.42, 800 simulations, 62% on its move``."""
    parts = []
    if isinstance(info.get("value"), (int, float)):
        parts.append(f"value {info['value']:+.2f}")
    for key, word in (("simulations", "simulations"), ("depth", "depth"), ("nodes", "nodes")):
        if isinstance(info.get(key), (int, float)) and not isinstance(info.get(key), bool):
            parts.append(f"{info[key]:,} {word}" if key != "depth" else f"depth {info[key]}")
    if isinstance(info.get("score"), (int, float)):
        parts.append(f"score {info['score']:g}")
    visits = info.get("visits")
    if isinstance(visits, dict) and visits:
        total = sum(v for v in visits.values() if isinstance(v, (int, float)))
        best = max(visits.values())
        if total:
            parts.append(f"{100 * best / total:.0f}% of visits on the top move")
    return ", ".join(parts)
