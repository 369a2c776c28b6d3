"""The games: pure rules, one module per game, and ``GAMES``, the one table of them.

``make_game(name, **params)`` builds a game by the name that the CLI, agent specs, gym ids and
run folders share. ``GAMES[name]`` (a ``GameEntry``) names every part of the game: rules, env
module, drawing, heuristics, ladder, graded position set, the play page's limits and suggested
opponents, benchmark rows and the batched rules; every other table reads it. Adding a game
means writing its rules module and adding its line here; the envs (``boardgym.envs``), agents,
training scripts, tournaments, drawings and the play page need no change. Nothing here
imports gymnasium, pettingzoo or torch.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from boardgym.game import Game
from boardgym.registry import Entry, check_value, lookup, parse_value, read_pairs
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class BenchRow:
    """A row of a benchmark for this game (``boardgym bench``): ``bench`` is ``envs`` (random
    play through the envs and the rules, beside PettingZoo's ``pettingzoo`` module of
    ``pettingzoo.classic`` and OpenSpiel's game ``openspiel`` with ``openspiel_params``),
    ``search`` (MCTS beside OpenSpiel's), ``alphabeta`` (our alpha-beta with ``settings``
    ``eval`` and ``depth``), ``move`` (the time of one move of the agent ``settings["spec"]``)
    or ``batched`` (the batched rules, beside pgx's game ``settings["pgx"]``);
    ``label`` names the row (default: the game), ``params`` are the game's parameters."""

    bench: str
    label: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    pettingzoo: str | None = None
    openspiel: str | None = None
    openspiel_params: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pretrained:
    """An AlphaZero network shipped with the package (``alphazero:pretrained=true``, the file
    ``boardgym/agents/alphazero/pretrained/<game>.pt``): the game parameters it was trained for
    (the game's defaults for the rest), the command that trained it and its compute budget."""

    params: dict[str, Any] = field(default_factory=dict)
    command: str = ""
    budget: str = ""

    def describe(self, game_name: str) -> str:
        """``hex size=7`` (or just ``tictactoe``)."""
        text = " ".join(f"{k}={param_text(v)}" for k, v in self.params.items())
        return f"{game_name} {text}".strip()


@dataclass(frozen=True)
class Demo:
    """The short game a game's page on the documentation site shows (an animation): its
    parameters and the agents' specs, one a player, seeded from ``seed``."""

    params: dict[str, Any]
    agents: tuple[str, ...]
    seed: int = 0


@dataclass(frozen=True)
class GameEntry(Entry):
    """Every part of one game, in one place. Code is named as ``"module:attr"`` strings,
    imported only when used (so this table imports nothing); the rest are plain values.

    ``target``: the ``Game`` class; ``summary``: one line for ``boardgym list``;
    ``gym_name``: the id ``boardgym/<gym_name>-v0``; ``gym_entry_point``: the single-agent env
    class (puzzles bring their own); ``masked``: whether that env has action masks (False for
    an env that takes any action of its space); ``env``: the PettingZoo module
    (``boardgym.envs.<game>_v0``, whose docstring is the game's manual; empty: the generic AEC
    env of ``boardgym.envs.core`` serves it); ``drawing``: the picture function (empty: the
    generic text picture, ``boardgym.draw.text``); ``heuristics``: evaluation name ->
    ``"module:Class"`` for ``minimax:eval=NAME``, the first the default; ``ladder`` and
    ``ladder_params``: the reference ladder's agent specs (weakest first) and the game
    parameters it plays at (``boardgym ladder``); ``grading``: the graded position set and its
    oracle (a ``boardgym.evaluate.grade_sets.GradingSet``); ``web_limits``: the largest value
    the play page accepts for a parameter (besides its general cap); ``web_defaults``: the
    page's starting parameters where the game's own defaults make a game nobody would finish
    by clicking; ``opponents``: agents the page suggests besides the generic ones, the strongest
    the package ships for the game among them (its network, its exact solver); ``bench``:
    the benchmarks' rows; ``batched``: the batched rules in torch (``boardgym.batch``), the
    slot the batched engine fills; ``pretrained``: the AlphaZero network the package ships for
    the game (a ``Pretrained``); ``demo``: the short game its page shows (default: MCTS
    against random); ``coevolve_weights``: the example weights of evaluation features that
    ``boardgym train coevolve`` measures its champion against (besides random weights).
    """

    gym_name: str = ""
    gym_entry_point: str = "boardgym.envs.single_agent:SingleAgentEnv"
    masked: bool = True
    env: str = ""
    drawing: str = ""
    heuristics: dict[str, str] = field(default_factory=dict)
    ladder: tuple[str, ...] = ()
    ladder_params: dict[str, Any] = field(default_factory=dict)
    grading: str = ""
    web_limits: dict[str, int] = field(default_factory=dict)
    web_defaults: dict[str, Any] = field(default_factory=dict)
    opponents: tuple[str, ...] = ()
    bench: tuple[BenchRow, ...] = ()
    batched: str = ""
    pretrained: Pretrained | None = None
    demo: Demo | None = None
    coevolve_weights: tuple[float, ...] = ()


_RULES = "boardgym.games"
_ENVS = "boardgym.envs"
_DRAW = "boardgym.draw"
_EVAL = "boardgym.agents.heuristics"
_SETS = "boardgym.evaluate.grade_sets"
_SOLVED_SETS = "boardgym.evaluate.solved_sets"
_PRETRAINED = "alphazero:pretrained=true,simulations=200,batch=8"
_MCTS = ("mcts:simulations=200", "mcts:simulations=800")
_SHIPPED = "alphazero:pretrained=true"  # the shipped network, for the play page

GAMES: dict[str, GameEntry] = {
    "tictactoe": GameEntry(
        f"{_RULES}.tictactoe:TicTacToe",
        "Tic-Tac-Toe, 3x3, 9 actions (cells)",
        gym_name="TicTacToe",
        env=f"{_ENVS}.tictactoe_v0",
        drawing=f"{_DRAW}.tictactoe:draw",
        heuristics={"lines": f"{_EVAL}.tictactoe:OpenLines"},
        ladder=(
            "random",
            "minimax:depth=1",
            "minimax:depth=2",
            "mcts:simulations=50",
            "mcts:simulations=400",
            "alphazero:pretrained=true,simulations=50",
            "perfect",
        ),
        grading=f"{_SETS}:TICTACTOE",
        opponents=(_SHIPPED,),
        batched="boardgym.batch.tictactoe:BatchedTicTacToe",
        bench=(
            BenchRow("envs", pettingzoo="tictactoe_v3", openspiel="tic_tac_toe"),
            BenchRow("batched", settings={"pgx": "tic_tac_toe"}),
            BenchRow("alphabeta", "tictactoe exact", settings={"eval": None, "depth": None}),
        ),
        demo=Demo({}, ("mcts:simulations=50", "minimax:depth=2")),
        pretrained=Pretrained(
            command="boardgym train alphazero --game tictactoe --run-name pretrained --workers 1",
            budget="60 iterations (3,840 self-play games at 48 simulations), 5 min 16 s wall on 2 shared CPU cores",
        ),
    ),
    "connect_four": GameEntry(
        f"{_RULES}.connect_four:ConnectFour",
        "Connect Four, 7x6, 7 actions (columns)",
        gym_name="ConnectFour",
        env=f"{_ENVS}.connect_four_v0",
        drawing=f"{_DRAW}.connect_four:draw",
        heuristics={"windows": f"{_EVAL}.connect_four:OpenWindows"},
        ladder=(
            "random",
            "minimax:depth=2",
            "minimax:depth=4",
            *_MCTS,
            _PRETRAINED + ",symmetries=true",  # the board and its mirror at every leaf
            "solver:time=1",
        ),
        grading=f"{_SETS}:CONNECT_FOUR",
        opponents=(_SHIPPED, "solver"),
        batched="boardgym.batch.connect_four:BatchedConnectFour",
        bench=(
            BenchRow("envs", pettingzoo="connect_four_v3", openspiel="connect_four"),
            BenchRow("batched", settings={"pgx": "connect_four"}),
            BenchRow("search", openspiel="connect_four"),
            BenchRow("alphabeta", "connect_four d6", settings={"eval": None, "depth": 6}),
            BenchRow("move", settings={"spec": "mcts:simulations=800"}),
            BenchRow("move", settings={"spec": "minimax:depth=6"}),
        ),
        demo=Demo({}, ("minimax:depth=2", "mcts:simulations=100")),
        pretrained=Pretrained(
            command="boardgym train alphazero --game connect_four --run-name t17 --init "
            "runs/connect_four/alphazero/t16/final.pt --replay runs/connect_four/alphazero/t16/replay-5.pt "
            "--solved-positions 100000 --solved-plies 23-38 --seed 15 --games-per-iteration 0 --iterations 6 "
            "--train-steps 800 --batch-size 512 --lr 0.0002 --lr-schedule cosine --blocks 5 --channels 64 "
            "--buffer-size 600000 --workers 2 --threads 2 --eval-every 0: the last of a chain (docs/pretrained.md, "
            "tenth and eleventh runs); before it, the 3 x 48 network's self-play with --solver-targets 16 on an H100 "
            "machine, a 5 x 64 network trained on that buffer on its GPU, then runs t12-t16 on the 2 CPU cores with "
            "--solved-positions",
            budget="3 x 48 network: 232 self-play iterations, 70 min on a third of a CPU core then 185 min on 2; then "
            "7.6 + 3.3 min on an H100 machine with 16 cores (3,000 self-play games, 105,028 rows; the 5 x 64 network's "
            "15 iterations of 1,000 steps beside them); then about 1 h 25 min on the 2 CPU cores: 250,000 solved "
            "positions of careful-random play (41 min of solving) and 14 training iterations of 600-800 steps",
        ),
    ),
    "nim": GameEntry(
        f"{_RULES}.nim:Nim",
        "Nim (heaps, misere, max-take k); action = heap * T + take - 1",
        gym_name="Nim",
        env=f"{_ENVS}.nim_v0",
        drawing=f"{_DRAW}.nim:draw",
        heuristics={"nimsum": f"{_EVAL}.nim:NimSum"},
        ladder=("random", "minimax:depth=2", "mcts:simulations=50", "mcts:simulations=400", "nimsum", "perfect"),
        grading=f"{_SETS}:NIM",
        web_limits={"heaps": 60, "k": 60},
        opponents=("nimsum",),
        batched="boardgym.batch.nim:BatchedNim",
        bench=(
            BenchRow("envs", openspiel="nim", openspiel_params={"pile_sizes": "1;3;5;7;9", "is_misere": False}),
            BenchRow("batched"),
        ),
        demo=Demo({}, ("mcts:simulations=50", "nimsum")),
    ),
    "quixo": GameEntry(
        f"{_RULES}.quixo:Quixo",
        "Quixo, 5x5 (size 3-5), 44 actions (border cube, end)",
        gym_name="Quixo",
        env=f"{_ENVS}.quixo_v0",
        drawing=f"{_DRAW}.quixo:draw",
        heuristics={"lines": f"{_EVAL}.quixo:LinePotential"},
        ladder=("random", "minimax:depth=1", "minimax:depth=2", *_MCTS, _PRETRAINED),
        grading=f"{_SOLVED_SETS}:QUIXO",
        opponents=(_SHIPPED,),
        batched="boardgym.batch.quixo:BatchedQuixo",
        bench=(BenchRow("envs"), BenchRow("batched")),
        demo=Demo({}, ("minimax:depth=1", "mcts:simulations=50")),
        pretrained=Pretrained(
            params={"size": 5, "max_moves": 100},
            command="boardgym train alphazero --game quixo --run-name pretrained --blocks 2 --channels 32 "
            "--simulations 32 --games-per-iteration 32 --parallel-games 32 --temperature-moves 8 --train-steps 40 "
            "--batch-size 128 --buffer-size 30000 --iterations 67 --eval-every 5 --eval-games 10 --eval-opponents "
            '"random;mcts:simulations=200" --workers auto',
            budget="67 iterations (2,144 self-play games at 32 simulations), 26 min on 2 CPU cores (2 self-play workers)",
        ),
    ),
    "quarto": GameEntry(
        f"{_RULES}.quarto:Quarto",
        "Quarto, 4x4, 32 actions (place 0-15, choose 16-31)",
        gym_name="Quarto",
        env=f"{_ENVS}.quarto_v0",
        drawing=f"{_DRAW}.quarto:draw",
        heuristics={"safe": f"{_EVAL}.quarto:SafePieces"},
        ladder=("random", "minimax:depth=1", "minimax:depth=2", *_MCTS),
        batched="boardgym.batch.quarto:BatchedQuarto",
        bench=(BenchRow("envs"), BenchRow("batched")),
        demo=Demo({}, ("minimax:depth=1", "mcts:simulations=50")),
    ),
    "hex": GameEntry(
        f"{_RULES}.hex:Hex",
        "Hex, 11x11 (size 3-19, swap rule), size^2 actions (cells)",
        gym_name="Hex",
        env=f"{_ENVS}.hex_v0",
        drawing=f"{_DRAW}.hex:draw",
        heuristics={"dijkstra": f"{_EVAL}.hex:ShortestPath", "twodistance": f"{_EVAL}.hex:TwoDistance"},
        ladder=("random", "minimax:depth=1", "minimax:depth=2", *_MCTS, _PRETRAINED),
        ladder_params={"size": 7},
        grading=f"{_SOLVED_SETS}:HEX",
        web_defaults={"size": 7},  # the size the shipped network plays
        opponents=(_SHIPPED,),
        batched="boardgym.batch.hex:BatchedHex",
        bench=(
            BenchRow("envs", "hex 11x11", openspiel="hex", openspiel_params={"board_size": 11}),
            BenchRow("envs", "hex 19x19", {"size": 19}, openspiel="hex", openspiel_params={"board_size": 19}),
            BenchRow("batched", "hex 11x11", settings={"pgx": "hex"}),
            BenchRow("batched", "hex 19x19", {"size": 19}),
            BenchRow("search", "hex 7x7", {"size": 7}, openspiel="hex(board_size=7)"),
            BenchRow("alphabeta", "hex 7x7 dijkstra d3", {"size": 7}, settings={"eval": "dijkstra", "depth": 3}),
            BenchRow("move", params={"size": 7}, settings={"spec": "mcts:simulations=800"}),
            BenchRow("move", params={"size": 7}, settings={"spec": "minimax:depth=3,eval=dijkstra"}),
        ),
        demo=Demo({"size": 7}, ("minimax:depth=1", "mcts:simulations=100")),
        pretrained=Pretrained(
            params={"size": 7},
            command="boardgym train alphazero --game hex -p size=7 --run-name pretrained --blocks 2 --channels 32 "
            "--simulations 32 --games-per-iteration 32 --parallel-games 32 --temperature-moves 6 --train-steps 40 "
            "--batch-size 128 --buffer-size 30000 --iterations 5 --eval-every 4 --eval-games 10 --eval-opponents "
            '"random;mcts:simulations=200" --workers 1, then the same options with --run-name pretrained2 --init '
            "pretrained --iterations 100 --workers auto (the first run's network as then shipped, in float16), then "
            "that run resumed (--resume) with --iterations 300",
            budget="5 iterations (160 self-play games at 32 simulations), 27 min wall on 2 CPU cores shared with "
            "four other jobs; then 300 iterations (9,600 games at 32 simulations), 10 min 38 s and 16 min 36 s "
            "wall on the 2 idle CPU cores (2 self-play workers)",
        ),
    ),
    "rastros": GameEntry(
        f"{_RULES}.rastros:Rastros",
        "Rastros, 8x8, 8 actions (step directions)",
        gym_name="Rastros",
        env=f"{_ENVS}.rastros_v0",
        drawing=f"{_DRAW}.rastros:draw",
        heuristics={"paths": f"{_EVAL}.rastros:GoalDistance"},
        ladder=("random", "minimax:depth=2", "minimax:depth=4", *_MCTS),
        opponents=("minimax:depth=4",),
        batched="boardgym.batch.rastros:BatchedRastros",
        bench=(BenchRow("envs"), BenchRow("batched")),
        demo=Demo({}, ("minimax:depth=2", "mcts:simulations=50")),
        # seed report 002's example chromosome [3, 2] over its features (distance to the start,
        # distance to the own goal), the one that beat [1, -100] in its pair-of-games test; our
        # Rastros features add the distance to the opponent's goal and the mobility, weighted 0
        coevolve_weights=(3.0, 2.0, 0.0, 0.0),
    ),
    "setcover": GameEntry(
        f"{_RULES}.setcover:SetCover",
        "set covering puzzle (1 player); action = take set i",
        gym_name="SetCover",
        gym_entry_point=f"{_ENVS}.setcover_env:SetCoverEnv",
        drawing=f"{_DRAW}.setcover:draw",
        web_limits={"problem_size": 100, "num_sets": 200},
        opponents=("greedy", "astar", "ucs"),
        demo=Demo({"problem_size": 12, "num_sets": 16, "density": 0.25, "seed": 1}, ("greedy",)),
    ),
    "blackbox": GameEntry(
        f"{_RULES}.blackbox:BlackBox",
        "black-box bit-string optimisation, a deceptive sliced OneMax (1 player); gym env: one genome per step",
        gym_name="BlackBox",
        gym_entry_point=f"{_ENVS}.blackbox_env:BlackBoxEnv",
        masked=False,
        drawing=f"{_DRAW}.blackbox:draw",
        web_limits={"genome_length": 2000},
        web_defaults={"instance": 5, "genome_length": 40},
        demo=Demo({"instance": 5, "genome_length": 40}, ("random",)),
    ),
}
"""The games by the name the CLI, agent specs, gym ids and run folders share; adding a game is
its rules module (and whichever of its other parts it has) plus one line here."""


def gym_id(name: str) -> str:
    """The Gymnasium id of the game registered as ``name``: ``boardgym/<gym_name>-v0``, where a
    game that gives no ``gym_name`` gets its name in CamelCase (``take_away``: ``TakeAway``)."""
    gym_name = lookup(GAMES, name, "game").gym_name or "".join(part.title() for part in name.split("_"))
    return f"boardgym/{gym_name}-v0"


def entry_of(game: Game | str) -> GameEntry | None:
    """The ``GAMES`` entry of a game (by object or name); None for a game made outside the
    table (a ``Game`` subclass used directly), which then gets every generic part."""
    return GAMES.get(game if isinstance(game, str) else game.name)


def game_class(name: str) -> type[Game]:
    """The Game class registered as ``name``."""
    cls: type[Game] = lookup(GAMES, name, "game").load()
    return cls


def make_game(name: str, **params: Any) -> Game:
    """Build a game by its registry name, e.g. ``make_game("nim", heaps=(3, 4, 5), misere=True)``.

    Every value is typed by the constructor's annotations: text is read (``misere="false"``
    is ``False``, ``size="7"`` is ``7``), so a parameter typed at a prompt means what it says,
    and other values are checked (``misere=2``, ``heaps=(3.5,)`` and ``size=5.0`` are refused,
    never truncated or taken as true)."""
    cls = game_class(name)
    annotations = game_parameters(cls)
    unknown = sorted(set(params) - set(annotations))
    if unknown:
        raise BoardgymError(
            f"unknown parameter(s) {', '.join(unknown)} for game {name!r}; "
            f"it takes: {', '.join(annotations) or 'no parameters'}"
        )
    hints = _hints(cls)
    typed = {
        key: parse_value(value, annotations[key], name=key)
        if isinstance(value, str)
        else check_value(value, hints.get(key, Any), name=key)
        for key, value in params.items()
    }
    return cls(**typed)


def game_parameters(cls: type[Game]) -> dict[str, Any]:
    """The constructor parameters of a Game class with their annotations (``Any`` where none),
    where an annotation that admits text keeps the text for the constructor to read."""
    hints = _hints(cls)
    params: dict[str, Any] = {}
    for param in inspect.signature(cls.__init__).parameters.values():
        if param.name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, Any)
        params[param.name] = str if _admits_text(annotation) else annotation
    return params


def parse_game_params(items: Iterable[str] | None, game: str | None = None) -> dict[str, Any]:
    """``["size=5", "heaps=3,4,5", "misere=true"]`` -> ``{"size": 5, "heaps": (3, 4, 5), "misere": True}``
    (the ``-p KEY=VALUE`` options of the CLI). With ``game``, each value is read by the
    annotation of that game's parameter; without, the text is kept for ``make_game`` to read."""
    annotations = game_parameters(game_class(game)) if game is not None else {}
    pairs = read_pairs(items or [], what="-p", example="-p size=7")
    return {
        key: parse_value(text, annotations[key], name=key) if key in annotations else text
        for key, text in pairs.items()
    }


def _hints(cls: type[Game]) -> dict[str, Any]:
    return typing.get_type_hints(cls.__init__)


def _admits_text(annotation: Any) -> bool:
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    return origin in (typing.Union, types.UnionType) and str in typing.get_args(annotation)


__all__ = [
    "GAMES",
    "BenchRow",
    "GameEntry",
    "entry_of",
    "game_class",
    "gym_id",
    "game_parameters",
    "make_game",
    "parse_game_params",
]


def param_text(value: Any) -> str:
    """A game parameter's value as typed after ``-p KEY=`` (``1,3,5``, ``true``, ``7``)."""
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return json.dumps(value) if isinstance(value, bool) else str(value)
