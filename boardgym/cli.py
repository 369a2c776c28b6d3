"""The ``boardgym`` command: list, play, render, serve, replay, train, evaluate, grade, solve, bench.

Each subcommand is an ``_add_<name>`` function that declares its parser and handler; a new
subcommand is one more such function and one line in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from boardgym import __version__
from boardgym.agents.registry import AGENTS, make_agent
from boardgym.config import seed_value
from boardgym.evaluate.tournament import BACKENDS as TOURNAMENT_BACKENDS
from boardgym.game import Game
from boardgym.games import GAMES, make_game, parse_game_params
from boardgym.registry import Entry, lookup
from boardgym.runs import os_error_sentence
from boardgym.train import METHODS
from boardgym.types import Action, BoardgymError, IllegalActionError

BENCHES: dict[str, Entry] = {
    "envs": Entry("boardgym.bench.env_speed:main", "random play: our AEC envs and rules vs PettingZoo and OpenSpiel"),
    "search": Entry(
        "boardgym.bench.search_speed:main", "MCTS simulations/s and alpha-beta nodes/s vs OpenSpiel's MCTSBot"
    ),
    "selfplay": Entry(
        "boardgym.bench.selfplay_speed:main",
        "AlphaZero self-play positions/s here and on Ray actors; the cluster cost model's figures",
    ),
    "solver": Entry(
        "boardgym.bench.solver_speed:main", "the Connect Four solver on Pons's test sets: time per position vs targets"
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if not getattr(args, "passes_extra", False) and extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.handler(args, extra) or 0)
    except BoardgymError as error:
        print(f"boardgym: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a folder we may not write, a full disk...
        print(f"boardgym: error: {os_error_sentence(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardgym",
        description="Board games and puzzles as Gymnasium / PettingZoo envs, with agents, training and tournaments.",
        epilog="boardgym COMMAND --help shows each command's options; boardgym list shows what exists.",
    )
    parser.add_argument("--version", action="version", version=f"boardgym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """``GAME`` and repeated ``--param KEY=VALUE`` game parameters, for every subcommand."""
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game parameter, repeatable (e.g. -p size=7, -p heaps=3,4,5 -p misere=true)",
    )


# -- list ---------------------------------------------------------------------------------------
def _add_list(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("list", help="list games, agents, training methods and benchmarks")
    parser.add_argument("what", nargs="?", choices=["games", "agents", "methods", "benches"], help="only this table")
    parser.set_defaults(handler=_list)


def _list(args: argparse.Namespace, extra: list[str]) -> int:
    tables = {
        "games": {name: f"{entry.summary}  [gym id boardgym/{entry.gym_name}-v0]" for name, entry in GAMES.items()},
        "agents": {name: entry.summary for name, entry in AGENTS.items()},
        "methods": {name: entry.summary for name, entry in METHODS.items()},
        "benches": {name: entry.summary for name, entry in BENCHES.items()},
    }
    for title, rows in tables.items():
        if args.what not in (None, title):
            continue
        print(f"{title}:")
        for name, summary in rows.items():
            print(f"  {name:<14} {summary}")
        if not rows:
            print("  (none yet)")
    return 0


# -- play ---------------------------------------------------------------------------------------
def _add_play(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("play", help="play a game against an agent in the terminal")
    add_game_arguments(parser)
    parser.add_argument(
        "--opponent", default="random", metavar="SPEC", help="agent spec, e.g. perfect or mcts:simulations=400"
    )
    parser.add_argument("--seat", default="0", choices=["0", "1", "random"], help="your seat: 0 moves first")
    parser.add_argument("--seed", type=seed_value, default=None, help="seed for the opponent and a random seat")
    parser.set_defaults(handler=_play)


def _play(args: argparse.Namespace, extra: list[str]) -> int:
    import numpy as np

    game = make_game(args.game, **parse_game_params(args.param))
    rng = np.random.default_rng(args.seed)
    seat = int(rng.integers(2)) if args.seat == "random" else int(args.seat)
    if game.num_players == 1:  # a puzzle: the person plays every move
        seat = 0
    human, opponent = make_agent("human", game), make_agent(args.opponent, game, seed=args.seed)
    players = (human, opponent) if seat == 0 else (opponent, human)
    print(f"{game.name}: you are player {seat} ({'first' if seat == 0 else 'second'}); opponent: {args.opponent}")
    state = game.initial_state()
    while not game.is_terminal(state):
        mover = game.current_player(state)
        action = players[mover].act(game, state)
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


# -- render ------------------------------------------------------------------------------------
def _add_render(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "render",
        help="draw a position as SVG or PNG: boardgym render GAME --moves 'b2 a1' -o board.png",
        description="Play the given moves from the start and write the picture of the position (the last move "
        "marked) to an .svg or .png file.",
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--moves",
        default="",
        metavar="MOVES",
        help="moves in the game's typed notation, comma or space separated (e.g. 'b2 a1 c3', '2:3,1:1', '5,4 6,3')",
    )
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="board.svg or board.png")
    parser.add_argument("--scale", type=float, default=1.0, help="PNG pixels per SVG unit (default 1; 2 for sharper)")
    parser.set_defaults(handler=_render)


def _render(args: argparse.Namespace, extra: list[str]) -> int:
    from boardgym.draw import show

    game = make_game(args.game, **parse_game_params(args.param))
    state, history = play_moves(game, args.moves)
    path = Path(args.output)
    if path.suffix.lower() not in (".svg", ".png"):
        raise BoardgymError(f"cannot write a picture to {args.output!r}: name a .svg or a .png file")
    show(game, state, history).save(path, scale=args.scale)
    print(f"{path}: {game.name} after {len(history)} move(s)")
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


# -- serve -------------------------------------------------------------------------------------
def _add_serve(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "serve",
        help="a local web page to play any game against any agent (needs the web extra)",
        description="Serve a page to play every game, with its parameters, against built-in agent specs and the "
        "checkpoints named here; agents think in worker processes under a per-move time cap. Binds 127.0.0.1.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--checkpoint",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="offer a trained agent as @NAME (repeatable); the page never sees the path",
    )
    parser.add_argument("--workers", type=int, default=2, help="agent worker processes (default 2)")
    parser.add_argument("--move-seconds", type=float, default=10.0, help="cap on one agent move (default 10 s)")
    parser.add_argument("--max-games", type=int, default=200, help="games held at once (default 200)")
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace, extra: list[str]) -> int:
    from boardgym.web.app import serve

    serve(
        args.host,
        args.port,
        args.checkpoint,
        workers=args.workers,
        move_seconds=args.move_seconds,
        max_sessions=args.max_games,
    )
    return 0


# -- replay ------------------------------------------------------------------------------------
def _add_replay(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "replay",
        help="write an HTML replay of a game record: boardgym replay game.json|results.jsonl [-o out.html]",
        description="Write a self-contained HTML page that steps through a game (buttons or arrow keys), with each "
        "move's time: from a record saved by `boardgym serve` or `boardgym evaluate --save-games`, or one game of "
        "a tournament's results.jsonl.",
    )
    parser.add_argument("file", metavar="FILE", help="a game record .json, or a tournament's results.jsonl")
    parser.add_argument("--game", type=int, default=None, metavar="K", help="game index in a results.jsonl")
    parser.add_argument("-o", "--output", default=None, metavar="FILE", help="the page (default: beside FILE)")
    parser.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace, extra: list[str]) -> int:
    from boardgym.evaluate.records import load_record
    from boardgym.web.replay import write_replay

    record = load_record(args.file, args.game)
    source = Path(args.file)
    if args.output is not None:
        output = Path(args.output)
    elif source.suffix == ".jsonl":
        output = source.with_name(f"replay-game-{args.game if args.game is not None else 'first'}.html")
    else:
        output = source.with_suffix(".html")
    if output.suffix.lower() not in (".html", ".htm"):
        raise BoardgymError(f"cannot write a replay to {str(output)!r}: name an .html file")
    write_replay(record, output)
    print(f"{output}: {record.game}, {len(record.moves)} moves")
    return 0


# -- train --------------------------------------------------------------------------------------
def _add_train(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("train", help="train an agent: boardgym train METHOD --game GAME [options]", add_help=False)
    parser.add_argument("method", nargs="?", metavar="METHOD", help=f"one of: {', '.join(METHODS) or '(none yet)'}")
    parser.set_defaults(handler=_train, passes_extra=True)


def _train(args: argparse.Namespace, extra: list[str]) -> int:
    return _run_entry(
        METHODS, args.method, extra, command="train", kind="training method", usage="METHOD --game GAME [options]"
    )


# -- bench --------------------------------------------------------------------------------------
def _add_bench(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bench", help="speed benchmarks against peer libraries", add_help=False)
    parser.add_argument("which", nargs="?", metavar="BENCH", help=f"one of: {', '.join(BENCHES)}")
    parser.set_defaults(handler=_bench, passes_extra=True)


def _bench(args: argparse.Namespace, extra: list[str]) -> int:
    return _run_entry(BENCHES, args.which, extra, command="bench", kind="benchmark", usage="BENCH [options]")


# -- solve --------------------------------------------------------------------------------------
def _add_solve(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solve", help="solve a puzzle: boardgym solve setcover|blackbox [options]", add_help=False)
    parser.add_argument("puzzle", nargs="?", metavar="PUZZLE", help="setcover or blackbox")
    parser.set_defaults(handler=_solve, passes_extra=True)


def _solve(args: argparse.Namespace, extra: list[str]) -> int:
    from boardgym.solve import SOLVERS

    return _run_entry(SOLVERS, args.puzzle, extra, command="solve", kind="puzzle", usage="PUZZLE [options]")


def _run_entry(
    table: Mapping[str, Entry], name: str | None, extra: list[str], *, command: str, kind: str, usage: str
) -> int:
    """``boardgym COMMAND NAME ...``: run the ``main(argv, prog)`` that ``table[name]`` names,
    or list the table when no name (or only --help) is given."""
    if name is None or name in ("-h", "--help"):
        word = usage.split()[0]
        print(f"usage: boardgym {command} {usage}   (boardgym {command} {word} --help for the options)")
        for key, entry in table.items():
            print(f"  {key:<12} {entry.summary}")
        return 0
    run = lookup(table, name, kind).load()
    return int(run(extra, prog=f"boardgym {command} {name}") or 0)


# -- grade --------------------------------------------------------------------------------------
def _add_grade(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "grade",
        help="mistake rate of an agent on solved positions: boardgym grade GAME --agent SPEC",
        add_help=False,
    )
    parser.set_defaults(handler=_grade, passes_extra=True)


def _grade(args: argparse.Namespace, extra: list[str]) -> int:
    from boardgym.evaluate.grade import main as grade_main

    return grade_main(extra, prog="boardgym grade")


# -- evaluate -----------------------------------------------------------------------------------
def _add_evaluate(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "evaluate",
        help="tournament between agents: leaderboard, Elo and TrueSkill, plots",
        description="Round robin (or gauntlet) between agent specs, seats alternated, in worker processes "
        "(or Ray tasks: --backend ray); writes report.md, summary.json, results.jsonl and png plots to "
        "runs/GAME/evaluate/RUN-NAME/.",
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help='agent specs, e.g. random perfect "mcts:simulations=200"',
    )
    parser.add_argument("--games", type=int, default=100, help="games per pairing (per agent for puzzles), default 100")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default: CPU cores, at most 8); with --backend ray and no --address, "
        "the CPUs of the Ray started here",
    )
    parser.add_argument(
        "--backend",
        default="local",
        choices=list(TOURNAMENT_BACKENDS),
        help="where games are played: " + "; ".join(f"{k}: {v}" for k, v in TOURNAMENT_BACKENDS.items()),
    )
    parser.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the cluster (auto, HOST:PORT of the head, ray://HOST:10001); default: "
        "$RAY_ADDRESS, else a Ray started on this machine (docs/cluster.md)",
    )
    parser.add_argument(
        "--seed", type=seed_value, default=0, help="tournament seed; each game's seeds derive from it (default 0)"
    )
    parser.add_argument(
        "--run-name", default=None, help="folder name under runs/GAME/evaluate/ (default s<seed>-<time>)"
    )
    parser.add_argument("--root", default="runs", help="the runs root the run folder goes under (default runs)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="finish (or, with more --games, extend) the run named by --run-name, or the newest",
    )
    parser.add_argument("--gauntlet", action="store_true", help="only the first agent plays each of the others")
    parser.add_argument(
        "--openings",
        default="auto",
        choices=["auto", "on", "off"],
        help="opening suite: each pair of games (seats swapped) starts after the same random opening moves; "
        "auto (default): on when an agent plays the same moves whatever its seed",
    )
    parser.add_argument(
        "--opening-plies",
        type=int,
        default=None,
        metavar="N",
        help="moves in each opening (default: the fewest with at least 1000 different openings); given, it turns "
        "the suite on under --openings auto",
    )
    parser.add_argument("--no-plots", action="store_true", help="skip the png plots")
    parser.add_argument(
        "--save-games",
        type=int,
        default=0,
        metavar="N",
        help="keep each move's time for the first N games and write them to games/game-INDEX.json "
        "(watch one with boardgym replay)",
    )
    parser.set_defaults(handler=_evaluate)


def _evaluate(args: argparse.Namespace, extra: list[str]) -> int:
    import os

    from boardgym.evaluate.analysis import analyse
    from boardgym.evaluate.report import console_summary, write_report
    from boardgym.evaluate.tournament import evaluate_folder, run_tournament

    out_dir = evaluate_folder(args.game, args.run_name, args.seed, args.resume, root=args.root)
    workers = args.workers if args.workers is not None else min(os.cpu_count() or 1, 8)
    try:
        tournament = run_tournament(
            args.game,
            args.agents,
            args.games,
            workers=workers,
            seed=args.seed,
            out_dir=out_dir,
            game_params=parse_game_params(args.param),
            gauntlet=args.gauntlet,
            resume=args.resume,
            backend=args.backend,
            address=args.address,
            save_games=args.save_games,
            openings=args.openings,
            opening_plies=args.opening_plies,
        )
    except KeyboardInterrupt:
        print(f"\ninterrupted; the finished games are in {out_dir}/results.jsonl", file=sys.stderr)
        print(f"finish them with the same command and: --run-name {out_dir.name} --resume", file=sys.stderr)
        return 130
    except Exception:
        if (out_dir / "results.jsonl").is_file() and (out_dir / "results.jsonl").stat().st_size:
            print(f"the games finished before the error are kept in {out_dir}/results.jsonl", file=sys.stderr)
        raise
    analysis = analyse(tournament) if tournament.num_players == 2 and tournament.games else None
    files = write_report(tournament, out_dir, plots=not args.no_plots, analysis=analysis)
    print(console_summary(tournament, analysis))
    warning = tournament.repeats_warning()
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"\n{len(tournament.games)} games; report, results and plots in {out_dir}/:")
    print("  " + "  ".join(path.name for path in files))
    return 0


# -- ladder -------------------------------------------------------------------------------------
def _add_ladder(sub: argparse._SubParsersAction) -> None:
    from boardgym.evaluate.ladder import LADDERS

    parser = sub.add_parser(
        "ladder",
        help="the reference ladder of a two-player game: the built-in agents rated against each other",
        description="Round robin of the game's built-in agents (boardgym.evaluate.ladder.LADDERS): Elo with 95%% "
        "intervals (random = 0), mistake rates where the game has a graded position set, ms per move; writes "
        "ladder.md, ladder.json and the tournament report to runs/GAME/ladder/RUN-NAME/.",
    )
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(LADDERS)}")
    parser.add_argument("--games", type=int, default=20, help="games per pairing, seats alternated (default 20)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of every game (default 0)")
    parser.add_argument("--run-name", default=None, help="folder name under runs/GAME/ladder/ (default s<seed>)")
    parser.add_argument("--root", default="runs", help="the runs root the run folder goes under (default runs)")
    parser.add_argument("--resume", action="store_true", help="finish or extend (more --games) the run --run-name")
    parser.add_argument(
        "--grade-sample",
        type=int,
        default=0,
        metavar="N",
        help="grade each rung on N positions of the game's graded set (every k-th; default 0: the whole set)",
    )
    parser.add_argument("--no-plots", action="store_true", help="skip the png plots")
    parser.set_defaults(handler=_ladder)


def _ladder(args: argparse.Namespace, extra: list[str]) -> int:
    from boardgym.evaluate.ladder import ladder_folder, ladder_markdown, run_ladder, set_grader

    out_dir = ladder_folder(args.game, args.run_name, args.seed, root=args.root)
    result = run_ladder(
        args.game,
        args.games,
        workers=args.workers,
        seed=args.seed,
        out_dir=out_dir,
        resume=args.resume,
        grader=set_grader(args.game, args.grade_sample, args.seed),
        plots=not args.no_plots,
    )
    print(ladder_markdown(result))
    print(f"\n{len(result.tournament.games)} games ({args.games} per pairing); ladder and report in {out_dir}/")
    return 0


COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_list,
    _add_play,
    _add_render,
    _add_serve,
    _add_replay,
    _add_train,
    _add_bench,
    _add_solve,
    _add_evaluate,
    _add_grade,
    _add_ladder,
]

if __name__ == "__main__":
    sys.exit(main())
