"""Sessions without a server: what a page may ask for, seats, undo, the store's bounds."""

from __future__ import annotations

import re
import time

import pytest

from boardgym import make_game
from boardgym.types import BoardgymError
from boardgym.web.sessions import RequestError, Seat, SessionStore, build_game, build_seat


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        (None, {}, "'game' must be a game name"),
        ("chess", {}, "unknown game 'chess'"),
        ("hex", "size=7", "'params' must be an object"),
        ("hex", {"size": 2.5}, "size=2.5 must be an integer"),
        ("hex", {"size": float("nan")}, "must be a finite number"),
        ("hex", {"Size": 7}, "is not a parameter name"),
        ("hex", {"colour": 7}, "unknown parameter"),
        ("nim", {"heaps": "1000000"}, "too large for this page"),
        ("nim", {"heaps": [1] * 40}, "list of at most 16 integers"),
        ("nim", {"heaps": {"a": 1}}, "must be a number, text"),
        ("setcover", {"problem_size": 5000}, "too large"),
        ("setcover", {"sets": "0 1;" * 100}, "longer than 200 characters"),
        ("setcover", {"seed": 2**40}, "below 2**32"),
        ("quixo", {"size": "x"}, "size='x' must be an integer"),
    ],
)
def test_bad_games_are_refused(name, params, message: str) -> None:
    with pytest.raises(BoardgymError, match=re.escape(message)):
        build_game(name, params)


def test_games_within_the_limits_are_built_from_text_and_numbers() -> None:
    assert build_game("nim", {"heaps": "3,4,5", "misere": "true"}).params() == {
        "heaps": (3, 4, 5),
        "misere": True,
        "k": None,
    }
    assert build_game("hex", {"size": 5, "swap": True}).num_actions == 26
    assert build_game("setcover", {"seed": 4_000_000_000, "density": 0.5}).num_sets == 40


def test_seats() -> None:
    game = make_game("tictactoe")
    assert build_seat("human", game, {}) == Seat("you", None)
    assert build_seat(" mcts:simulations=5 ", game, {}).spec == "mcts:simulations=5"
    assert build_seat("@az", game, {"az": "alphazero:checkpoint=/x/y.pt"}) == Seat(
        "@az", "alphazero:checkpoint=/x/y.pt"
    )
    for player, message in [
        ("god", "unknown agent 'god'"),
        ("mcts:sims=3", "no parameter 'sims'"),
        ("human:x=1", 'choose "human"'),
        ("alphazero:checkpoint=/etc/passwd", "checkpoint paths are not accepted"),
        ("@nope", "no checkpoint named '@nope'"),
        (3, "a player must be"),
        ("", "a player must be"),
        ("x" * 500, "a player must be"),
    ]:
        with pytest.raises(BoardgymError, match=re.escape(message)):
            build_seat(player, game, {})


def test_undo_takes_back_the_persons_move_and_the_replies() -> None:
    store = SessionStore()
    game = make_game("tictactoe")
    session = store.add(game, (Seat("you", None), Seat("random", "random")), seed=0)
    with pytest.raises(RequestError, match="no move to undo"):
        session.undo()
    session.play(4, seconds=None, info={}, by_agent=False)
    session.play(0, seconds=0.1, info={"value": 0.2}, by_agent=True)
    assert session.undo() == 2 and session.state == game.initial_state()
    first_agent = store.add(game, (Seat("random", "random"), Seat("you", None)), seed=0)
    first_agent.play(4, seconds=0.1, info={}, by_agent=True)
    with pytest.raises(RequestError, match="no move of yours"):
        first_agent.undo()
    watched = store.add(game, (Seat("a", "random"), Seat("b", "random")), seed=0)
    watched.play(4, seconds=0.1, info={}, by_agent=True)
    watched.play(0, seconds=0.1, info={}, by_agent=True)
    assert watched.undo() == 1 and len(watched.moves) == 1


def test_view_shows_the_last_agent_search_over_its_board() -> None:
    store = SessionStore()
    session = store.add(make_game("tictactoe"), (Seat("you", None), Seat("mcts", "mcts")), seed=0)
    session.play(4, seconds=None, info={}, by_agent=False)
    session.play(0, seconds=0.25, info={"visits": {0: 30, 2: 10}, "value": -0.5}, by_agent=True)
    view = session.view()
    assert view["human_to_move"] and view["to_move"] == 0 and len(view["legal"]) == 7
    assert view["analysis"]["move"] == "a1" and view["analysis"]["value"] == -0.5
    assert "75%" in view["analysis"]["svg"] and 'class="overlay"' in view["analysis"]["svg"]
    assert view["moves"][1]["by"] == "mcts" and view["moves"][1]["seconds"] == 0.25


def test_view_names_the_sides_and_how_a_click_moves() -> None:
    store = SessionStore()
    you = Seat("you", None)
    four = store.add(make_game("connect_four"), (Seat("random", "random"), you), seed=0).view()
    assert four["sides"] == ["X (red)", "O (yellow)"] and four["hint"] == ""
    nim = store.add(make_game("nim"), (you, Seat("random", "random")), seed=0).view()
    assert nim["sides"] == ["player 0", "player 1"] and "every match to its right" in nim["hint"]
    quixo = store.add(make_game("quixo"), (you, Seat("random", "random")), seed=0).view()
    assert quixo["sides"] == ["X", "O"] and "quarter" in quixo["hint"] and "slide" in quixo["hint"]


def test_a_finished_puzzle_says_what_its_return_means() -> None:
    session = SessionStore().add(make_game("setcover", sets="0 1;1 2;2 3"), (Seat("you", None),), seed=0)
    for action in (0, 2):
        session.play(action, seconds=None, info={}, by_agent=False)
    assert session.view()["result"] == (
        "all 4 elements covered with 2 sets: return -2 (minus one per set taken; the fewer sets, the better)"
    )
    session = SessionStore().add(make_game("blackbox", instance=2, genome_length=4), (Seat("you", None),), seed=0)
    for action in (1, 1, 1, 1):
        session.play(action, seconds=None, info={}, by_agent=False)
    assert session.view()["result"].startswith("genome of 4 loci set: return 1.0000, its fitness for instance 2")


def test_store_bounds_the_number_of_games_and_drops_idle_ones() -> None:
    store = SessionStore(limit=2, idle_seconds=0.05)
    game = make_game("nim", heaps=(1,))
    seats = (Seat("you", None), Seat("r", "random"))
    first = store.add(game, seats, 0)
    store.add(game, seats, 0)
    with pytest.raises(RequestError, match="maximum of 2 games") as error:
        store.add(game, seats, 0)
    assert error.value.status == 429
    time.sleep(0.1)
    assert store.add(game, seats, 0)  # the idle ones went
    with pytest.raises(RequestError, match="no game") as missing:
        store.get(first.id)
    assert missing.value.status == 404
