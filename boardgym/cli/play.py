"""``boardgym list``, ``boardgym play`` and ``boardgym render``: their options and what runs them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.agents.human import GameAbandoned
from boardgym.agents.registry import make_agent, read_spec
from boardgym.config import REQUIRED, Options, game_params_option, option, seed_option
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.types import Action, BoardgymError, IllegalActionError

GAME_HELP = "the game (boardgym list games)"


@dataclass(frozen=True)
class GameOptions(Options):
    """A game and its parameters, the first argument of several commands: checked by building
    it, so that an unknown game or a bad parameter is refused before anything runs."""

    game: str = option(REQUIRED, GAME_HELP, positional=True, metavar="GAME")
    game_params: dict[str, Any] = game_params_option()

    def check(self) -> None:
        self.make_game()

    def make_game(self) -> Game:
        return make_game(self.game, **self.game_params)


@dataclass(frozen=True)
class ListOptions(Options):
    """List games, agents, training methods and benchmarks."""

    what: str | None = option(
        None, "only this table", positional=True, metavar="WHAT", choices=("games", "agents", "methods", "benches")
    )


def list_tables(options: ListOptions) -> int:
    from boardgym.cli import known_tables

    for title, rows in known_tables().items():
        if options.what not in (None, title):
            continue
        print(f"{title}:")
        for name, summary in rows.items():
            print(f"  {name:<14} {summary}")
        if not rows:
            print("  (none yet)")
    return 0


@dataclass(frozen=True)
class PlayOptions(GameOptions):
    """Play a game against an agent in the terminal."""

    opponent: str = option("random", "agent spec, e.g. perfect or mcts:simulations=400", metavar="SPEC")
    seat: str = option("0", "your seat: 0 moves first", choices=("0", "1", "random"))
    seed: int | None = seed_option(None, "seed for the opponent and a random seat")

    def check(self) -> None:
        super().check()
        read_spec(self.opponent)


def play(options: PlayOptions) -> int:
    import numpy as np

    game = options.make_game()
    rng = np.random.default_rng(options.seed)
    seat = int(rng.integers(2)) if options.seat == "random" else int(options.seat)
    if game.num_players == 1:  # a puzzle: the person plays every move
        seat = 0
    human, opponent = make_agent("human", game), make_agent(options.opponent, game, seed=options.seed)
    players = (human, opponent) if seat == 0 else (opponent, human)
    print(f"{game.name}: you are player {seat} ({'first' if seat == 0 else 'second'}); opponent: {options.opponent}")
    state = game.initial_state()
    while not game.is_terminal(state):
        mover = game.current_player(state)
        try:
            action = players[mover].act(game, state)
        except GameAbandoned as abandoned:
            print(f"{abandoned}: game abandoned")
            return 0
        if mover != seat:
            print(f"opponent plays {game.action_to_str(state, action)}")
        state = game.apply(state, action)
    print(game.render(state))
    result = game.returns(state)[seat]
    if game.num_players == 1:
        print(f"solved: return {result:g}")
        return 0
    print("you win" if result > 0 else "you lose" if result < 0 else "draw")
    return 0


@dataclass(frozen=True)
class RenderOptions(GameOptions):
    """Draw a position as SVG or PNG."""

    output: Path = option(REQUIRED, "board.svg or board.png", short="-o", metavar="FILE", required=True)
    moves: str | None = option(
        None,
        "moves in the game's typed notation, comma or space separated (e.g. 'b2 a1 c3', '2:3,1:1', '5,4 6,3')",
        metavar="MOVES",
    )
    scale: float = option(1.0, "PNG pixels per SVG unit (2 for sharper)", above=0, maximum=16)

    def check(self) -> None:
        super().check()
        if self.output.suffix.lower() not in (".svg", ".png"):
            raise BoardgymError(f"cannot write a picture to {str(self.output)!r}: name a .svg or a .png file")


def render(options: RenderOptions) -> int:
    from boardgym.draw import show

    game = options.make_game()
    state, history = play_moves(game, options.moves or "")
    show(game, state, history).save(options.output, scale=options.scale)
    print(f"{options.output}: {game.name} after {len(history)} move(s)")
    return 0


def play_moves(game: Game, text: str) -> tuple[Any, list[Action]]:
    """Play ``text`` (moves in the game's typed notation, separated by commas or spaces) from
    the start; returns the position and the actions. A move that cannot be played is refused
    in one sentence naming it and the legal moves. A notation with a comma inside (Rastros's
    ``5,4``) is read whole first; where a piece between commas is no move, it is read
    together with the next."""
    state, history = game.initial_state(), list[int]()
    for token in text.split():
        pieces, whole_error = [token], None
        if not game.is_terminal(state) and "," in token:
            try:
                game.parse_action(state, token)
            except IllegalActionError as error:
                pieces, whole_error = [piece for piece in token.split(",") if piece], error
        i = 0
        while i < len(pieces):
            if game.is_terminal(state):
                raise _bad_move(game, state, len(history), pieces[i], None)
            try:
                action, used = game.parse_action(state, pieces[i]), 1
            except IllegalActionError as error:
                try:
                    if i + 1 >= len(pieces):
                        raise
                    action, used = game.parse_action(state, f"{pieces[i]},{pieces[i + 1]}"), 2
                except IllegalActionError:
                    if i == 0 and whole_error is not None:  # the token as typed was no move
                        raise _bad_move(game, state, len(history), token, whole_error) from None
                    raise _bad_move(game, state, len(history), pieces[i], error) from None
            state = game.apply(state, action)
            history.append(action)
            i += used
    return state, history


def _bad_move(game: Game, state: Any, played: int, text: str, error: Exception | None) -> BoardgymError:
    if error is None or game.is_terminal(state):
        return BoardgymError(f"move {played + 1} ({text!r}) comes after the end of the game; drop it and the rest")
    message = str(error)
    if "legal moves" not in message:
        legal = ", ".join(game.action_to_str(state, a) for a in game.legal_actions(state))
        message += f"; legal moves: {legal}"
    return BoardgymError(f"move {played + 1} ({text!r}): {message}")
