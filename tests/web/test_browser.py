"""Real browser tests: headless Chromium plays a whole game of every game on the page by
clicking the highlighted moves, and reads the result; illegal clicks, undo, the record
download, watching two agents, the agent's analysis and the replay page."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from boardgym.evaluate.records import record_of_match
from boardgym.games import GAMES, make_game
from boardgym.web.offer import param_text as _param_text
from boardgym.web.replay import write_replay

# (game, page parameters, players): small boards where the defaults make long games.
WHOLE_GAMES = [
    ("tictactoe", {}, ["human", "random"]),
    ("connect_four", {}, ["random", "human"]),
    ("nim", {"heaps": "2,3,4", "k": "3"}, ["human", "random"]),
    ("quixo", {"size": "4", "max_moves": "30"}, ["human", "random"]),
    ("quarto", {}, ["human", "random"]),
    ("hex", {"size": "5", "swap": "true"}, ["random", "human"]),
    ("rastros", {}, ["human", "random"]),
    ("setcover", {"problem_size": "12", "num_sets": "10", "density": "0.3", "seed": "2"}, ["human"]),
    ("blackbox", {"instance": "2", "genome_length": "8"}, ["human"]),
]
RESULTS = re.compile(
    r"^(you win|you lose|draw|all 12 elements covered with \d+ sets?: return -\d+ \(minus one per set taken.*\)"
    r"|genome of 8 loci set: return [\d.]+, its fitness for instance 2 .*)$"
)
# What the status line says the person plays, at the start of each game above.
SIDES = {
    "tictactoe": "You play X, moving first",
    "connect_four": "You play O (yellow), moving second",
    "nim": "You are player 0, moving first",
    "quixo": "You play X, moving first",
    "quarto": "You are player 0, moving first",
    "hex": "You play White, moving second",
    "rastros": "You play S (player 0), moving first",
}
ENDINGS = re.compile(r"( — you won| — you lost|draw.*)$")


def start_game(page: Any, url: str, game: str, params: dict[str, str], players: list[str]) -> None:
    page.goto(url)
    page.wait_for_selector("#game option[value='tictactoe']", state="attached")
    page.select_option("#game", game)
    for key, value in params.items():
        page.fill(f"input[name='param-{key}']", value)
    for seat, player in enumerate(players):
        page.select_option(f"#seat{seat}", player)
    page.click("#new-game")
    page.wait_for_function(
        "document.querySelector('#board svg') !== null || document.querySelector('#message').textContent !== ''"
    )
    assert page.text_content("#message") == "", page.text_content("#message")


def click_a_move(page: Any, rng: random.Random) -> None:
    targets = page.locator("#board:not(.waiting) .target")
    target = targets.nth(rng.randrange(targets.count()))
    # Nim's targets lie over one another: a match's left edge is inside its own target only.
    overlap = "overlap" in (target.get_attribute("class") or "")
    with page.expect_response(lambda response: response.url.endswith("/move")):
        target.click(position={"x": 3, "y": 12} if overlap else None)


def play_to_the_end(page: Any, seed: int, max_clicks: int = 120) -> str:
    rng = random.Random(seed)
    for _ in range(max_clicks):
        page.wait_for_function(
            "document.querySelector('#result').textContent !== '' || "
            "document.querySelector('#board:not(.waiting) .target') !== null",
            timeout=30_000,
        )
        result = page.text_content("#result")
        if result:
            return result
        click_a_move(page, rng)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("game", "params", "players"), WHOLE_GAMES, ids=[case[0] for case in WHOLE_GAMES])
def test_a_whole_game_by_clicks(page: Any, live_server: Any, game: str, params: dict, players: list) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    start_game(page, live_server.url, game, params, players)
    if game in SIDES:
        assert page.text_content("#status .side") == SIDES[game]
    else:  # a puzzle: no side to name
        assert page.text_content("#status").startswith("Your move: ")
    if game == "nim":  # a click takes more than the match clicked: the page says so
        assert "every match to its right" in page.text_content("#play-hint")
    result = play_to_the_end(page, seed=len(game))
    assert RESULTS.match(result), result
    status = page.text_content("#status")
    assert ENDINGS.search(status) if game in SIDES else status.startswith("Finished: "), status
    assert page.locator("#pause").is_hidden() or page.locator("#pause").is_disabled()
    assert page.locator("#moves tbody tr").count() > 0
    assert page.locator("#board .target").count() == 0  # nothing left to click
    assert page.text_content("#message") == "" and errors == []


def created_params(page: Any) -> dict[str, Any]:
    """Press New game and return the parameters of the game the server built."""
    with page.expect_response(lambda r: r.url.endswith("/api/sessions") and r.request.method == "POST") as answer:
        page.click("#new-game")
    assert answer.value.status == 201, answer.value.text()
    return dict(answer.value.json()["params"])


def test_the_game_created_is_the_game_the_form_shows(page: Any, live_server: Any) -> None:
    page.goto(live_server.url)
    page.wait_for_selector("#game option[value='tictactoe']", state="attached")
    for game in GAMES:
        page.select_option("#game", game)
        players = page.locator("#seats select").count()
        for seat in range(players):
            page.select_option(f"#seat{seat}", "human")
        shown = {
            name.removeprefix("param-"): value
            for name, value in page.eval_on_selector_all(
                "#params input", "inputs => inputs.map(input => [input.name, input.value])"
            )
        }
        params = created_params(page)
        for key, value in shown.items():
            if value != "":
                assert _param_text(params.get(key)) == value, (game, key, params)
    page.select_option("#game", "blackbox")
    page.fill("input[name='param-genome_length']", "30")
    assert created_params(page) == {"instance": 5, "genome_length": 30}  # the form's instance, the typed length


def message(page: Any, expected: str) -> str:
    """The page's message once it holds ``expected`` (the page writes it after the server's
    response has arrived, so reading it at once can race), or as it is after 5 s."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(
            "expected => document.querySelector('#message').textContent.includes(expected)", arg=expected, timeout=5000
        )
    except PlaywrightTimeoutError:  # the assertion that reads the result shows what the message says
        pass
    return page.text_content("#message")


def test_the_first_screen_invites_to_play_and_disables_what_cannot_be_done(page: Any, live_server: Any) -> None:
    page.goto(live_server.url)
    page.wait_for_selector("#game option[value='tictactoe']", state="attached")
    assert "press New game" in page.text_content("#board")
    assert page.text_content("#status") == "No game yet"
    assert page.is_disabled("#undo") and page.is_disabled("#pause") and page.is_disabled("#typed-move")
    assert page.get_attribute("#download", "href") is None  # nothing to download (not the page itself)
    page.select_option("#seat1", "random")
    assert page.text_content("#invite-start") == "Start tictactoe: you vs random"
    page.click("#invite-start")
    page.wait_for_selector("#board svg .target", state="attached")
    assert page.text_content("#status") == "You play X, moving first · Your move"
    assert page.is_disabled("#undo")  # no move of the person's to take back yet
    assert page.is_enabled("#pause") and page.get_attribute("#download", "href").endswith("/record")
    with page.expect_response(lambda response: response.url.endswith("/agent")):
        page.click("#board [data-action='4']")
    page.wait_for_function("document.querySelectorAll('#moves tbody tr').length === 2")
    assert page.text_content("#status") == "You play X, moving first · Your move"
    assert page.is_enabled("#undo")


def test_long_agent_names_leave_the_time_column_in_view(page: Any, live_server: Any) -> None:
    spec = "mcts:simulations=20,c=1.41421356,rollouts=1"
    page.goto(live_server.url)
    page.wait_for_selector("#game option[value='tictactoe']", state="attached")
    page.select_option("#seat0", "__other__")
    page.fill("#seat0-spec", spec)
    page.select_option("#seat1", "human")
    page.click("#new-game")
    page.wait_for_selector("#moves tbody tr td.time", state="attached")
    assert page.text_content("#status .side") == "You play O, moving second"
    cell = page.locator("#moves tbody tr td.time").first.bounding_box()
    box = page.locator("#moves-box").bounding_box()
    assert cell["x"] + cell["width"] <= box["x"] + box["width"] + 0.5
    assert page.get_attribute("#moves tbody tr td.who", "title") == spec


def test_the_agents_view_of_quarto_is_readable_and_set_cover_fits(page: Any, live_server: Any) -> None:
    start_game(page, live_server.url, "quarto", {}, ["human", "mcts:simulations=300"])
    with page.expect_response(lambda response: response.url.endswith("/agent")):
        page.click("#board [data-action='16']")  # give piece 0: the agent places it, then chooses
    page.wait_for_selector("#analysis svg .overlay", state="attached")
    smallest = page.eval_on_selector(
        "#analysis svg",
        """svg => Math.min(...[...svg.querySelectorAll('text')].map(text =>
            Number(text.getAttribute('font-size')) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width))""",
    )
    assert smallest >= 9, f"the analysis picture's smallest text is {smallest:.1f} px"
    start_game(page, live_server.url, "setcover", {}, ["human"])  # 40 sets
    last = page.locator("#board [data-action='39']").bounding_box()
    assert last["y"] + last["height"] <= page.viewport_size["height"]


def test_an_illegal_click_is_explained(page: Any, live_server: Any) -> None:
    start_game(page, live_server.url, "tictactoe", {}, ["human", "human"])
    with page.expect_response(lambda response: response.url.endswith("/move")):
        page.click("#board [data-move='b2']")
    page.wait_for_selector("#board [data-move='b2'].spot", state="attached")
    with page.expect_response(lambda response: response.url.endswith("/move")):
        page.click("#board [data-move='b2']")
    assert "not legal here; legal moves: a1" in message(page, "not legal here; legal moves: a1")
    page.click("#board svg", position={"x": 5, "y": 5})  # the margin: no move there
    assert "click one of the highlighted moves" in message(page, "click one of the highlighted moves")
    page.fill("#typed-move", "q7")
    with page.expect_response(lambda response: response.url.endswith("/move")):
        page.click("#typed button")
    assert "cannot read move 'q7'" in message(page, "cannot read move 'q7'")


def test_undo_download_and_the_agents_analysis(page: Any, live_server: Any, tmp_path: Path) -> None:
    changes: list[tuple[str, str, str | None]] = []  # every request that changes something is JSON
    page.on(
        "request",
        lambda request: (
            request.method != "GET"
            and changes.append((request.method, request.url, request.headers.get("content-type")))
        ),
    )
    start_game(page, live_server.url, "tictactoe", {}, ["human", "mcts:simulations=300"])
    with page.expect_response(lambda response: response.url.endswith("/agent")):
        page.click("#board [data-action='4']")
    page.wait_for_selector("#analysis svg .overlay", state="attached")
    assert "mcts:simulations=300 played" in page.text_content("#analysis")
    assert page.locator("#moves tbody tr").count() == 2
    with page.expect_download() as download:
        page.click("#download")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["format"] == "boardgym-game-v1" and [m["move"] for m in record["moves"]][0] == "b2"
    with page.expect_response(lambda response: response.url.endswith("/undo")):
        page.click("#undo")
    page.wait_for_function("document.querySelectorAll('#moves tbody tr').length === 0")
    assert page.locator("#board .target").count() == 9
    with page.expect_response(lambda response: response.request.method == "DELETE"):
        page.click("#new-game")  # the old game is deleted
    assert {url.rsplit("/", 1)[-1] for _, url, _ in changes} >= {"sessions", "move", "agent", "undo"}
    assert all(kind == "application/json" for _, _, kind in changes), changes


def test_watching_two_agents_play(page: Any, live_server: Any) -> None:
    start_game(page, live_server.url, "connect_four", {}, ["random", "random"])
    page.wait_for_function("document.querySelector('#result').textContent !== ''", timeout=60_000)
    assert re.match(r"^(player [01] \(random\) wins|draw)$", page.text_content("#result"))
    assert page.text_content("#status .side") == "random as X (red) vs random as O (yellow)"
    assert page.is_disabled("#pause")
    assert page.locator("#moves tbody tr.agent").count() >= 7


def test_a_bad_spec_is_refused_on_the_page(page: Any, live_server: Any) -> None:
    start_game(page, live_server.url, "tictactoe", {}, ["human", "random"])
    page.select_option("#seat1", "__other__")
    page.fill("#seat1-spec", "mcts:sims=5")
    page.click("#new-game")
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    assert "agent 'mcts' has no parameter 'sims'" in page.text_content("#message")


def test_the_replay_page_steps_with_buttons_and_keys(page: Any, tmp_path: Path) -> None:
    game = make_game("connect_four")
    moves = [3, 3, 4, 4, 5, 5, 6]
    record = record_of_match(game, ["a", "b"], moves, [0.0] + [0.5] * 6, "test", opening=1)
    path = write_replay(record, tmp_path / "replay.html")
    page.goto(path.as_uri())
    assert page.text_content("#position") == "move 0 of 7"
    assert page.text_content("#rows tr:nth-child(1) td.time") == "opening"  # the suite's move, not a's
    assert page.text_content("#rows tr:nth-child(2) td.time") == "500 ms"
    page.keyboard.press("ArrowRight")
    assert "1. d: an opening move, from the suite" in page.text_content("#details")
    page.keyboard.press("ArrowRight")
    assert page.text_content("#position") == "move 2 of 7"
    assert "2. b played d in 500 ms" in page.text_content("#details")
    page.keyboard.press("End")
    assert page.text_content("#position") == "move 7 of 7"
    assert "X (red) wins" in page.text_content("#board")
    page.click("#first")
    assert page.text_content("#position") == "move 0 of 7"
    page.click("#rows tr:nth-child(4)")
    assert page.text_content("#position") == "move 4 of 7"
