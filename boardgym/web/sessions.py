"""Games being played in the browser: one ``Session`` per game (the rules object, the moves so
far with who made them, their times and what the agents found) and the ``SessionStore``
that bounds how many there are and how long an idle one is kept.

A seat is a person at the page (``human``) or an agent spec. Checkpoints are named by the
server (``--checkpoint NAME=PATH``) and chosen in the page as ``@NAME``; their paths never
reach the browser.
"""

from __future__ import annotations

import asyncio
import math
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import boardgym.draw as draw
from boardgym.agents.registry import agent_class, parse_spec, spec_parameters
from boardgym.evaluate.records import GameRecord
from boardgym.game import Game
from boardgym.games import GAMES, make_game
from boardgym.registry import lookup
from boardgym.runs import jsonable
from boardgym.types import Action, BoardgymError
from boardgym.web.pool import spec_label

HUMAN = "human"
# What a page may ask for: numbers and texts small enough that no game, picture or table
# built from them can take the server's memory or minutes of its time.
MAX_NUMBER = 1000
MAX_TEXT = 200
MAX_LIST = 16
# A game's own tighter limits are its GAMES entry's web_limits.
MAX_ACTIONS = 1000
NO_LIMIT = {"seed"}  # instance seeds may be any 32-bit number


class RequestError(BoardgymError):
    """A request the server refuses: ``status`` is the HTTP status (4xx), the text says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Seat:
    """``label`` is what the page shows; ``spec`` the agent spec played (None for a person)."""

    label: str
    spec: str | None

    @property
    def human(self) -> bool:
        return self.spec is None


@dataclass
class PlayedMove:
    action: Action
    player: int
    seconds: float | None
    info: dict[str, Any]
    by_agent: bool


@dataclass
class Session:
    id: str
    game: Game
    seats: tuple[Seat, ...]
    seed: int
    states: list[Any]
    moves: list[PlayedMove] = field(default_factory=list)
    touched: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    client: str = ""  # who started it (``Visitor.key``): the share it counts against
    address: str = ""  # and that visitor's network address, whose share it counts against too

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def finished(self) -> bool:
        return self.game.is_terminal(self.state)

    def mover(self) -> int | None:
        return None if self.finished else int(self.game.current_player(self.state))

    def agent_key(self, seat: int) -> str:
        return f"{self.id}:{seat}"

    def play(self, action: Action, *, seconds: float | None, info: Mapping[str, Any], by_agent: bool) -> None:
        """Apply ``action`` for the player on move (``game.apply`` refuses an illegal one)."""
        player = self.mover()
        if player is None:
            raise RequestError(409, "the game is over; start a new game or undo a move")
        self.states.append(self.game.apply(self.state, action))
        self.moves.append(PlayedMove(int(action), player, seconds, dict(info), by_agent))

    def undo(self) -> int:
        """Take back the last move of a person at the page and every agent move after it (or
        the last move, when only agents play); returns how many moves went."""
        if not self.moves:
            raise RequestError(409, "there is no move to undo")
        if all(not seat.human for seat in self.seats):
            count = 1
        else:
            humans = [i for i, move in enumerate(self.moves) if not move.by_agent]
            if not humans:
                raise RequestError(409, "no move of yours to undo yet")
            count = len(self.moves) - humans[-1]
        del self.moves[-count:]
        del self.states[-count:]
        return count

    def view(self) -> dict[str, Any]:
        """What the page shows: the picture with its targets, whose move it is, the legal moves,
        the moves so far and the last agent move's analysis."""
        game, state = self.game, self.state
        history = [move.action for move in self.moves]
        picture = draw.picture(game, state, history)
        mover = self.mover()
        legal = game.legal_actions(state) if mover is not None else []
        moves = []
        for i, move in enumerate(self.moves):
            moves.append(
                {
                    "number": i + 1,
                    "action": move.action,
                    "move": game.action_to_str(self.states[i], move.action),
                    "player": move.player,
                    "by": self.seats[move.player].label,
                    "seconds": move.seconds,
                    "info": move.info,
                }
            )
        return {
            "id": self.id,
            "game": game.name,
            "params": jsonable(game.params()),
            "players": [{"label": seat.label, "human": seat.human} for seat in self.seats],
            "sides": list(draw.side_names(game)),
            "hint": draw.click_hint(game),
            "svg": picture.svg(),
            "status": picture.caption,
            "to_move": mover,
            "human_to_move": mover is not None and self.seats[mover].human,
            "legal": [{"action": a, "move": game.action_to_str(state, a)} for a in legal],
            "finished": mover is None,
            "result": self._result(),
            "moves": moves,
            "analysis": self._analysis(),
        }

    def record(self) -> GameRecord:
        return GameRecord(
            self.game.name,
            dict(self.game.params()),
            tuple(seat.label for seat in self.seats),
            tuple(move.action for move in self.moves),
            tuple(move.seconds for move in self.moves),
            tuple(move.info for move in self.moves),
            title="played with boardgym serve",
        )

    # -- internals ----------------------------------------------------------------------------
    def _result(self) -> str | None:
        if not self.finished:
            return None
        returns = self.game.returns(self.state)
        if len(returns) == 1:
            return draw.result_text(self.game, self.state)
        humans = [seat for seat, s in enumerate(self.seats) if s.human]
        best = max(returns)
        winners = [p for p, r in enumerate(returns) if r == best]
        if len(winners) != 1:
            return "draw"
        winner = winners[0]
        if len(humans) == 1:
            return "you win" if winner == humans[0] else "you lose"
        return f"player {winner} ({self.seats[winner].label}) wins"

    def _analysis(self) -> dict[str, Any] | None:
        """The latest agent move's search: the position it chose in with the visit shares (or
        the network's policy) drawn over the moves, its value and time."""
        index = next((i for i in range(len(self.moves) - 1, -1, -1) if self.moves[i].by_agent), None)
        if index is None:
            return None
        move = self.moves[index]
        shares = _shares(move.info)
        before = self.states[index]
        history = [m.action for m in self.moves[:index]]
        return {
            "number": index + 1,
            "by": self.seats[move.player].label,
            "move": self.game.action_to_str(before, move.action),
            "seconds": move.seconds,
            "value": move.info.get("value"),
            "info": move.info,
            "svg": draw.svg(self.game, before, history, overlay=shares, targets=False) if shares else None,
        }


class SessionStore:
    """At most ``limit`` sessions, at most ``client_limit`` of one client and
    ``address_limit`` of one network address (all its clients); one untouched for
    ``idle_seconds`` goes."""

    def __init__(
        self, limit: int = 200, idle_seconds: float = 1800.0, client_limit: int = 20, address_limit: int | None = None
    ) -> None:
        self.limit = limit
        self.idle_seconds = idle_seconds
        self.client_limit = client_limit
        self.address_limit = limit if address_limit is None else address_limit
        self.sessions: dict[str, Session] = {}

    def add(self, game: Game, seats: tuple[Seat, ...], seed: int, client: str = "", address: str = "") -> Session:
        self.expire()
        mine = sum(1 for s in self.sessions.values() if s.client == client)
        if self.client_limit < self.limit and mine >= self.client_limit:
            raise RequestError(
                429,
                f"you have {self.client_limit} games open, this server's share for one visitor; end one (a new "
                f"game from the page ends the old one) or let one sit idle for {_duration(self.idle_seconds)}",
            )
        ours = sum(1 for s in self.sessions.values() if s.address == address)
        if self.address_limit < self.limit and ours >= self.address_limit:
            raise RequestError(
                429,
                f"your network address holds {self.address_limit} games, this server's share for one address "
                f"(every visitor behind it); end one or let one sit idle for {_duration(self.idle_seconds)}",
            )
        if len(self.sessions) >= self.limit:
            raise RequestError(
                429,
                f"the server holds its maximum of {self.limit} games (of all its visitors); try again when one "
                f"ends or sits idle for {_duration(self.idle_seconds)}",
            )
        session = Session(
            secrets.token_urlsafe(12), game, seats, seed, [game.initial_state()], client=client, address=address
        )
        self.sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(
                404, f"no game {session_id[:40]!r} on this server (it ended or expired); start a new one"
            )
        session.touched = time.monotonic()
        return session

    def remove(self, session_id: str) -> Session | None:
        return self.sessions.pop(session_id, None)

    def expire(self) -> list[Session]:
        """Remove and return the sessions idle for too long."""
        now = time.monotonic()
        gone = [s for s in self.sessions.values() if now - s.touched > self.idle_seconds and not s.lock.locked()]
        for session in gone:
            del self.sessions[session.id]
        return gone


# -- reading requests -----------------------------------------------------------------------------
def build_game(name: Any, params: Any) -> Game:
    """The game a page asks for, its parameters checked against the limits above."""
    if not isinstance(name, str) or not name:
        raise RequestError(400, "'game' must be a game name, e.g. \"tictactoe\"")
    entry = lookup(GAMES, name, "game")  # unknown names: one sentence listing the games
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RequestError(400, "'params' must be an object of game parameters, e.g. {\"size\": 7}")
    limits = entry.web_limits
    for key, value in params.items():
        _check_value(name, key, value, limits.get(key, MAX_NUMBER))
    try:
        game = make_game(name, **params)
    except BoardgymError:
        raise
    except Exception as error:  # a constructor that chokes on a value of the wrong kind
        raise RequestError(400, f"bad parameters {params!r} for game {name!r}: {error}") from None
    if game.num_actions > MAX_ACTIONS:
        raise RequestError(
            400, f"{name} with {params} has {game.num_actions} actions; this page plays games of at most {MAX_ACTIONS}"
        )
    return game


def build_seat(player: Any, game: Game, checkpoints: Mapping[str, str]) -> Seat:
    """``"human"``, an agent spec, or ``"@NAME"`` for a checkpoint the server was started with."""
    if not isinstance(player, str) or not player.strip() or len(player) > MAX_TEXT:
        raise RequestError(400, f'a player must be "human" or an agent spec of at most {MAX_TEXT} characters')
    player = player.strip()
    if player == HUMAN:
        return Seat("you", None)
    if player.startswith("@"):
        name = player[1:]
        if name not in checkpoints:
            known = ", ".join(f"@{n}" for n in checkpoints) or "none (start the server with --checkpoint NAME=PATH)"
            raise RequestError(400, f"no checkpoint named {player!r} on this server; it has: {known}")
        return Seat(player, checkpoints[name])
    name, params = parse_spec(player)
    if name == HUMAN:
        raise RequestError(400, 'the human agent plays at a terminal; choose "human" as the player instead')
    accepted = spec_parameters(agent_class(name))
    if "checkpoint" in params:
        raise RequestError(400, "checkpoint paths are not accepted from the page; choose a checkpoint as @NAME")
    for key in params:
        if key not in accepted:
            raise BoardgymError(
                f"agent {name!r} has no parameter {key!r} (in spec {player!r}); "
                f"it takes: {', '.join(accepted) or 'no parameters'}"
            )
    return Seat(spec_label(player), player)


def _check_value(game: str, key: Any, value: Any, limit: int) -> None:
    if not isinstance(key, str) or not re.fullmatch(r"[a-z_]{1,30}", key):
        raise RequestError(400, f"game parameter name {str(key)[:40]!r} is not a parameter name")
    numbers: list[float] = []
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise RequestError(400, f"game parameter {key}={value!r} must be a finite number")
        numbers = [value]
    elif isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise RequestError(400, f"game parameter {key!r} is longer than {MAX_TEXT} characters")
        numbers = [float(run) for run in re.findall(r"\d+", value)]
    elif isinstance(value, list):
        if len(value) > MAX_LIST or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise RequestError(400, f"game parameter {key!r} must be a list of at most {MAX_LIST} integers")
        numbers = list(value)
    else:
        raise RequestError(400, f"game parameter {key!r} must be a number, text, true/false or a list of integers")
    if key not in NO_LIMIT and any(abs(n) > limit for n in numbers):
        raise RequestError(400, f"game parameter {key}={value!r} is too large for this page (at most {limit} here)")
    if key in NO_LIMIT and any(abs(n) >= 2**32 for n in numbers):
        raise RequestError(400, f"game parameter {key}={value!r} must be below 2**32")


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} s"


def _shares(info: Mapping[str, Any]) -> dict[int, float] | None:
    counts = info.get("visits") or info.get("policy")
    if not isinstance(counts, dict) or not counts:
        return None
    total = sum(float(v) for v in counts.values())
    if not total > 0:
        return None
    return {int(a): float(v) / total for a, v in counts.items()}
