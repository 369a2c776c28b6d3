"""Game records: the JSON file, reading it back (and refusing what does not fit), one game of
a tournament's results.jsonl, and ``evaluate --save-games``."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from boardgym import make_game
from boardgym.cli import main
from boardgym.evaluate.match import play_match
from boardgym.evaluate.records import RECORD_FORMAT, GameRecord, load_record, record_of_match
from boardgym.evaluate.tournament import RESULTS_FILE, run_tournament
from boardgym.types import BoardgymError
from boardgym.web.replay import replay_html


def test_a_record_round_trips_with_typed_moves_and_result(tmp_path: Path) -> None:
    game = make_game("nim", heaps=(2, 3))
    record = GameRecord(
        "nim",
        {"heaps": (2, 3)},
        ("you", "random"),
        (5, 0, 0),
        (1.5, 0.01, None),
        ({}, {"value": 0.5, "visits": {0: 3}}, {}),
    )
    values = record.to_dict()
    assert values["format"] == RECORD_FORMAT and values["params"] == {"heaps": [2, 3]}
    assert [m["move"] for m in values["moves"]] == ["2:3", "1:1", "1:1"]
    assert [m["player"] for m in values["moves"]] == [0, 1, 0]
    assert values["returns"] == [1.0, -1.0] and values["result"] == "player 0 wins"
    assert values["moves"][1]["info"] == {"value": 0.5, "visits": {"0": 3}}
    path = record.save(tmp_path / "game.json")
    again = load_record(path)
    assert again.moves == record.moves and again.seconds == record.seconds and again.players == record.players
    assert again.make_game().params() == game.params()
    assert len(again.positions()) == 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other"}, "not a boardgym-game-v1 game record"),
        ({"game": 3}, "'game' must be a name"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"players": "you"}, "'players' must be a list"),
        ({"moves": [{"action": "b2"}]}, "move 1 has no integer 'action'"),
        ({"moves": [{"action": 4, "seconds": "slow"}]}, "seconds='slow'"),
        ({"moves": [{"action": 4}, {"action": 4}]}, "move 2 of the record (4) is not legal"),
        ({"moves": [{"action": 99}]}, "move 1 of the record (99) is not legal"),
    ],
)
def test_bad_records_are_refused_in_one_sentence(change: dict, message: str) -> None:
    values = record_of_match(make_game("tictactoe"), ["a", "b"], [4]).to_dict()
    values.update(change)
    with pytest.raises(BoardgymError, match=message.replace("(", r"\(").replace(")", r"\)")):
        GameRecord.from_dict(values)


def test_nan_seconds_are_refused_and_infos_written_without_nan() -> None:
    values = record_of_match(make_game("tictactoe"), ["a", "b"], [4]).to_dict()
    values["moves"][0]["seconds"] = math.nan
    with pytest.raises(BoardgymError, match="seconds=nan"):
        GameRecord.from_dict(values)
    record = GameRecord("tictactoe", {}, ("a", "b"), (4,), (0.1,), ({"value": math.nan},))
    assert json.loads(record.to_json())["moves"][0]["info"] == {"value": None}


def test_load_record_explains_missing_and_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="does not exist"):
        load_record(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(BoardgymError, match="is not JSON"):
        load_record(tmp_path / "bad.json")
    (tmp_path / "results.jsonl").write_text('{"index": 0}\n')
    with pytest.raises(BoardgymError, match="no tournament.json"):
        load_record(tmp_path / "results.jsonl")


def test_play_match_times_each_move_when_asked() -> None:
    game = make_game("tictactoe")
    timed = play_match(game, ["random", "random"], seed=0, record_times=True)
    assert len(timed.move_seconds) == timed.num_moves and all(t >= 0 for t in timed.move_seconds)
    assert "move_seconds" in timed.to_dict()
    plain = play_match(game, ["random", "random"], seed=0)
    assert plain.move_seconds == () and "move_seconds" not in plain.to_dict()


def test_save_games_writes_records_of_the_first_games(tmp_path: Path) -> None:
    run_tournament(
        "tictactoe", ["random", "mcts:simulations=20"], 3, seed=1, out_dir=tmp_path, progress=False, save_games=2
    )
    saved = sorted(p.name for p in (tmp_path / "games").iterdir())
    assert saved == ["game-0.json", "game-1.json"]
    lines = {json.loads(line)["index"]: json.loads(line) for line in (tmp_path / RESULTS_FILE).read_text().splitlines()}
    assert "move_seconds" in lines[0] and "move_seconds" in lines[1] and "move_seconds" not in lines[2]
    record = load_record(tmp_path / "games" / "game-1.json")
    assert record.moves == tuple(lines[1]["moves"]) and all(t is not None for t in record.seconds)
    from_results = load_record(tmp_path / RESULTS_FILE, 1)
    assert from_results.moves == record.moves and from_results.seconds == record.seconds
    untimed = load_record(tmp_path / RESULTS_FILE, 2)
    assert set(untimed.seconds) == {None}
    assert load_record(tmp_path / RESULTS_FILE).moves == tuple(lines[0]["moves"])  # the lowest index by default
    with pytest.raises(BoardgymError, match="has no game 7; its games are 0, 1, 2"):
        load_record(tmp_path / RESULTS_FILE, 7)
    with pytest.raises(BoardgymError, match="save_games=-1"):
        run_tournament("tictactoe", ["random", "random"], 1, out_dir=tmp_path / "x", progress=False, save_games=-1)


def test_saved_games_carry_the_search_figures_and_mark_the_opening(tmp_path: Path) -> None:
    run_tournament(
        "tictactoe",
        ["random", "mcts:simulations=20"],
        2,
        seed=1,
        out_dir=tmp_path,
        progress=False,
        save_games=1,
        openings="on",
        opening_plies=2,
    )
    saved = json.loads((tmp_path / "games" / "game-0.json").read_text())
    assert saved["opening"] == 2
    assert [move.get("opening", False) for move in saved["moves"][:3]] == [True, True, False]
    assert [move["seconds"] for move in saved["moves"][:2]] == [None, None]
    mcts = saved["players"].index("mcts:simulations=20")
    searched = [move for move in saved["moves"][2:] if move["player"] == mcts]
    assert searched and all(move["info"]["simulations"] == 20 and move["info"]["visits"] for move in searched)
    assert all("info" not in move for move in saved["moves"] if move["player"] != mcts)  # random reports nothing
    record = load_record(tmp_path / "games" / "game-0.json")
    from_results = load_record(tmp_path / RESULTS_FILE, 0)
    assert record.opening == from_results.opening == 2 and record.infos == from_results.infos
    data = json.loads(re.search(r"const DATA = (.*);\n", replay_html(record)).group(1))
    assert [move["opening"] for move in data["moves"][:3]] == [True, True, False]
    assert data["moves"][0]["seconds"] is None and "opening suite" in data["subtitle"]
    assert any("20 simulations" in data["moves"][i]["info"] for i in range(2, len(data["moves"])))


def test_evaluate_cli_save_games_and_replay(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "evaluate",
                "nim",
                "-p",
                "heaps=2,3",
                "--agents",
                "random",
                "nimsum",
                "--games",
                "2",
                "--workers",
                "1",
                "--no-plots",
                "--run-name",
                "r",
                "--save-games",
                "1",
            ]
        )
        == 0
    )
    folder = tmp_path / "runs" / "nim" / "evaluate" / "r"
    assert (folder / "games" / "game-0.json").is_file() and not (folder / "games" / "game-1.json").exists()
    assert main(["replay", str(folder / "games" / "game-0.json")]) == 0
    assert (folder / "games" / "game-0.html").read_text().startswith("<!doctype html>")
    assert main(["replay", str(folder / RESULTS_FILE), "--game", "1", "-o", str(tmp_path / "one.html")]) == 0
    assert "nim" in (tmp_path / "one.html").read_text()
    capsys.readouterr()
    assert main(["replay", str(folder / RESULTS_FILE), "--game", "5"]) == 2
    assert "has no game 5" in capsys.readouterr().err
    assert main(["replay", str(folder / "games" / "game-0.json"), "-o", str(tmp_path / "x.pdf")]) == 2
    assert "name an .html file" in capsys.readouterr().err
    assert main(["replay", str(folder / "games" / "game-0.json"), "--game", "0"]) == 2
    assert "holds one game" in capsys.readouterr().err
