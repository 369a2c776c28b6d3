"""Replay pages: one frame per position, the moves with their times, nothing that a name in
a record could turn into markup."""

from __future__ import annotations

import json
import re
from pathlib import Path

from boardgym import make_game
from boardgym.evaluate.records import GameRecord, record_of_match
from boardgym.web.replay import info_text, replay_html, write_replay


def page_data(html: str) -> dict:
    match = re.search(r"const DATA = (.*);\n", html)
    assert match, "no data in the page"
    return json.loads(match.group(1))


def test_one_frame_per_position_and_the_moves_with_their_times(tmp_path: Path) -> None:
    game = make_game("hex", size=4)
    record = record_of_match(game, ["mcts:simulations=5", "random"], [5, 0, 10], [0.25, 0.001, 1.5], "test game")
    html = replay_html(record)
    data = page_data(html)
    assert len(data["frames"]) == 4 and all(frame.startswith("<svg") for frame in data["frames"])
    assert [m["move"] for m in data["moves"]] == ["b2", "a1", "c3"]
    assert [m["seconds"] for m in data["moves"]] == [0.25, 0.001, 1.5]
    assert data["moves"][1]["player_name"] == "random"
    assert data["title"] == "hex (size=4, swap=False): test game"
    assert "data-action" not in html  # the frames are pictures, not boards to click
    assert write_replay(record, tmp_path / "r.html").read_text() == html


def test_names_in_a_record_cannot_close_the_script() -> None:
    hostile = "</script><script>alert(1)</script>"
    record = GameRecord("tictactoe", {}, (hostile, "b"), (4,), title=hostile)
    html = replay_html(record)
    assert hostile not in html and page_data(html)["moves"][0]["player_name"] == hostile


def test_info_text_summarises_a_search() -> None:
    assert info_text({"value": 0.4213, "simulations": 800, "visits": {0: 600, 1: 200}}) == (
        "value +0.42, 800 simulations, 75% of visits on the top move"
    )
    assert info_text({"depth": 4, "nodes": 12345, "score": -3.5}) == "depth 4, 12,345 nodes, score -3.5"
    assert info_text({}) == ""
