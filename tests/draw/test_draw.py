"""Every game's picture: well-formed SVG whose targets are exactly the legal moves (with their
typed names), coordinates in the game's notation, the last move marked, a size that never
changes within a game, overlays on the targets, and the ``show`` wrapper for notebooks."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import boardgym
from boardgym import draw
from boardgym.draw.quarto import describe
from boardgym.games import GAMES, make_game
from boardgym.games.tictactoe import TicTacToe
from boardgym.types import IllegalActionError

SVG = "{http://www.w3.org/2000/svg}"
# Small parameters where the defaults make long games, so that random games end quickly.
PARAMS: dict[str, dict[str, Any]] = {
    "hex": {"size": 5, "swap": True},
    "quixo": {"size": 4, "max_moves": 40},
    "setcover": {"problem_size": 8, "num_sets": 6, "density": 0.4, "seed": 1},
    "blackbox": {"instance": 2, "genome_length": 12},
}
# A coordinate label each picture must show, in the notation moves are typed in.
LABELS = {
    "tictactoe": ["a", "c", "1", "3"],
    "connect_four": ["a", "g", "1", "6"],
    "nim": ["heap 1", "heap 5"],
    "quixo": ["a", "d", "1", "4"],
    "quarto": ["a", "d", "1", "4", "available", "to place"],
    "hex": ["a", "e", "1", "5"],
    "rastros": ["1", "8", "S", "N"],
    "setcover": ["set 0", "set 5", "covered"],
    "blackbox": ["0"],
}


def random_game(name: str, seed: int, plies: int | None = None) -> tuple[Any, list[tuple[Any, list[int]]]]:
    """A game and the (state, history) pairs of a random game, from the start to the end (or
    ``plies`` moves)."""
    game = make_game(name, **PARAMS.get(name, {}))
    rng = np.random.default_rng(seed)
    state, history = game.initial_state(), []
    positions = [(state, [])]
    while not game.is_terminal(state) and (plies is None or len(history) < plies):
        action = int(rng.choice(game.legal_actions(state)))
        state = game.apply(state, action)
        history.append(action)
        positions.append((state, list(history)))
    return game, positions


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def targets(root: ET.Element) -> dict[int, str]:
    found = {}
    for element in root.iter():
        if element.get("data-action") is not None:
            assert "target" in element.get("class", "").split()
            found[int(element.get("data-action"))] = element.get("data-move")
    return found


def spots(root: ET.Element) -> list[str]:
    return [e.get("data-move") for e in root.iter() if "spot" in e.get("class", "").split()]


def texts(root: ET.Element) -> list[str]:
    return [element.text or "" for element in root.iter(f"{SVG}text")]


def test_every_game_is_drawn_by_its_own_drawing_or_the_text_picture() -> None:
    for name, entry in GAMES.items():
        assert draw.drawing_of(make_game(name)) == (entry.drawing or draw.TEXT_DRAWING)
    assert all(entry.drawing for entry in GAMES.values()), "every shipped game has a drawing of its own"


@pytest.mark.parametrize("name", list(GAMES))
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_targets_are_the_legal_moves_in_every_position(name: str, seed: int) -> None:
    game, positions = random_game(name, seed)
    for state, history in positions:
        root = parse(draw.svg(game, state, history))
        legal = game.legal_actions(state)
        assert targets(root) == {a: game.action_to_str(state, a) for a in legal}
        for action, move in targets(root).items():  # each typed name reads back as its action
            assert game.parse_action(state, move) == action
        for move in spots(root):  # a click beside the legal moves gets the rules' reason
            with pytest.raises(IllegalActionError):
                game.parse_action(state, move)
    assert game.is_terminal(positions[-1][0])


@pytest.mark.parametrize("name", list(LABELS))
def test_coordinates_caption_and_last_move(name: str) -> None:
    game, positions = random_game(name, seed=3, plies=4)
    state, history = positions[-1]
    root = parse(draw.svg(game, state, history))
    labels = texts(root)
    for label in LABELS[name]:
        assert label in labels, f"{name}: no label {label!r} in {labels}"
    caption = [e.text for e in root.iter(f"{SVG}text") if e.get("class") == "caption"]
    assert caption and caption[0]
    assert root.find(".//*[@class='last-move']") is not None
    assert parse(draw.svg(game, game.initial_state())).find(".//*[@class='last-move']") is None


@pytest.mark.parametrize("name", list(GAMES))
def test_picture_size_depends_only_on_the_game(name: str) -> None:
    game, positions = random_game(name, seed=5)
    sizes = {draw.rgb_array(game, state, history).shape for state, history in positions[:: max(1, len(positions) // 4)]}
    assert len(sizes) == 1
    height, width, channels = sizes.pop()
    assert channels == 3 and height > 100 and width > 100


@pytest.mark.parametrize("name", list(GAMES))
def test_finished_games_name_the_result(name: str) -> None:
    game, positions = random_game(name, seed=11)
    state, history = positions[-1]
    root = parse(draw.svg(game, state, history))
    caption = next(e.text for e in root.iter(f"{SVG}text") if e.get("class") == "caption")
    assert any(word in caption for word in ("wins", "draw", "covered with", "fitness")), caption
    assert targets(root) == {}


def test_overlay_draws_one_mark_per_share_at_the_targets() -> None:
    game = make_game("connect_four")
    state = game.initial_state()
    root = parse(draw.svg(game, state, overlay={3: 0.6, 2: 0.3, 4: 0.1, 0: 0.0}))
    overlay = root.find(f"{SVG}g[@class='overlay']")
    assert overlay is not None
    assert len(overlay.findall(f"{SVG}circle")) == 3
    assert "60%" in [t.text for t in overlay.iter(f"{SVG}text")]
    assert parse(draw.svg(game, state)).find(f"{SVG}g[@class='overlay']") is None


def test_targets_can_be_left_out_and_are_invisible_when_drawn() -> None:
    game = make_game("tictactoe")
    state = game.initial_state()
    assert targets(parse(draw.svg(game, state, targets=False))) == {}
    with_targets = draw.png(game, state)  # png() draws no targets; the svg's are transparent
    plain = draw.svg(game, state, targets=False)
    assert draw.raster.svg_to_png(draw.svg(game, state)) == draw.raster.svg_to_png(plain) == with_targets


def test_show_wraps_a_state_for_notebooks(tmp_path: Path) -> None:
    game = make_game("nim", heaps=(2, 3))
    state = game.apply(game.initial_state(), game.parse_action(game.initial_state(), "2:2"))
    board = draw.show(game, state, [game.parse_action(game.initial_state(), "2:2")])
    svg = board._repr_svg_()
    assert svg.startswith("<svg") and "data-action" not in svg and "last-move" in svg
    assert board.save(tmp_path / "nim.svg").read_text() == svg
    assert board.save(tmp_path / "nim.png").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(boardgym.BoardgymError, match="board.gif"):
        board.save(tmp_path / "board.gif")
    assert "heap 1" in repr(board)


@pytest.mark.parametrize(
    ("name", "params", "moves", "spot", "reason"),
    [
        ("tictactoe", {}, ["b2"], "b2", "not legal here"),
        ("rastros", {}, [], "1,1", "not next to the white stone"),
        ("nim", {"heaps": (5,), "k": 2}, [], "1:3", "take 1..2"),
        ("connect_four", {}, ["a"] * 6, "a", "not legal here"),
    ],
)
def test_spots_name_the_moves_that_are_not_legal_there(
    name: str, params: dict[str, Any], moves: list[str], spot: str, reason: str
) -> None:
    game = make_game(name, **params)
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, game.parse_action(state, move))
    assert spot in spots(parse(draw.svg(game, state)))
    with pytest.raises(IllegalActionError, match=reason):
        game.parse_action(state, spot)


def test_a_game_without_a_drawing_gets_the_text_picture() -> None:
    class Unknown(TicTacToe):  # rules the package has, under a name it has no drawing for
        name = "unknown_game"

    game = Unknown()
    state = game.apply(game.apply(game.initial_state(), 4), 0)
    root = parse(draw.svg(game, state, [4, 0]))
    assert targets(root) == {a: game.action_to_str(state, a) for a in game.legal_actions(state)}
    lines = game.render(state).splitlines()
    assert [text for text in texts(root) if text in lines] == lines  # the text board, line by line
    assert root.find(".//*[@class='last-move']") is not None
    caption = next(e.text for e in root.iter(f"{SVG}text") if e.get("class") == "caption")
    assert caption == "player 0 to move"
    assert draw.rgb_array(game, state).shape == draw.rgb_array(game, game.initial_state()).shape


def test_nim_click_takes_the_match_and_those_right_of_it() -> None:
    game = make_game("nim", heaps=(3, 5), k=2)
    root = parse(draw.svg(game, game.initial_state()))
    found = targets(root)
    assert set(found.values()) == {"1:1", "1:2", "2:1", "2:2"}  # k=2: at most two per move
    widths = {e.get("data-move"): float(e.get("width")) for e in root.iter() if e.get("data-move")}
    assert widths["2:2"] == pytest.approx(2 * widths["2:1"])


def test_quarto_shows_the_four_attributes_of_each_piece() -> None:
    assert describe(11) == "p11 = 1011: tall, light, square, hollow"
    assert describe(0) == "p0 = 0000: short, light, round, solid"
    game = make_game("quarto")
    state = game.apply(game.initial_state(), game.parse_action(game.initial_state(), "p11"))
    root = parse(draw.svg(game, state))
    pieces = [g for g in root.iter(f"{SVG}g") if g.get("class") == "piece"]
    assert len(pieces) == 16  # 15 available and the one to place
    assert "p11 = 1011" in texts(root)
    assert "player 1 places p11" in texts(root)


def test_hex_swap_is_a_target_while_legal() -> None:
    game = make_game("hex", size=4, swap=True)
    state = game.apply(game.initial_state(), 5)
    assert targets(parse(draw.svg(game, state)))[game.swap_action] == "swap"
    assert game.swap_action not in targets(parse(draw.svg(game, game.apply(state, 0))))


def test_drawing_loads_without_gymnasium_or_torch() -> None:
    code = (
        "import sys\n"
        "from boardgym import draw, make_game\n"
        "from boardgym.games import GAMES\n"
        "for name in GAMES:\n"
        "    game = make_game(name)\n"
        "    draw.svg(game, game.initial_state())\n"
        "print(','.join(m for m in ('gymnasium', 'pettingzoo', 'torch') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_a_small_set_cover_leaves_room_for_its_caption() -> None:
    game = make_game("setcover", sets="0 1;1 2;2 3")
    state = game.apply(game.apply(game.initial_state(), 0), 2)
    canvas = draw.picture(game, state)
    assert canvas.caption == "all 4 elements covered with 2 sets"
    assert canvas.width >= 0.6 * 15 * len(canvas.caption)  # the caption's font is 15 units, a letter ~0.6 of it
