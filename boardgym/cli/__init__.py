"""The ``boardgym`` command: list, play, render, serve, replay, train, evaluate, grade, ladder,
docs, solve, bench.

Every command is an options dataclass (``boardgym.config``: each option declared once, with its
rules) and a function that runs it, named in ``COMMANDS``; the parser is built from the options,
and the options are checked before the command runs, so a bad value is one sentence naming its
option and nothing is written. ``train``, ``bench`` and ``solve`` hand the rest of the command
line to the entry they name (``METHODS``, ``BENCHES``, ``SOLVERS``), each of which reads it with
its own options the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from boardgym import __version__
from boardgym.agents.registry import AGENTS
from boardgym.bench import BENCHES
from boardgym.config import add_options, options_from_args
from boardgym.games import GAMES, gym_id
from boardgym.registry import CommandEntry, load, lookup
from boardgym.runs import os_error_sentence
from boardgym.solve import SOLVERS
from boardgym.train import METHODS
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class Command:
    """A command: ``options``, its options class, and ``run``, the function that takes them and
    returns the exit status (both ``"module:attr"``, imported when the parser is built)."""

    options: str
    run: str
    help: str
    description: str = ""


_HERE = "boardgym.cli"

COMMANDS: dict[str, Command] = {
    "list": Command(f"{_HERE}.play:ListOptions", f"{_HERE}.play:list_tables", "list games, agents, methods, benches"),
    "play": Command(f"{_HERE}.play:PlayOptions", f"{_HERE}.play:play", "play a game against an agent in the terminal"),
    "render": Command(
        f"{_HERE}.play:RenderOptions",
        f"{_HERE}.play:render",
        "draw a position as SVG or PNG: boardgym render GAME --moves 'b2 a1' -o board.png",
        "Play the given moves from the start and write the picture of the position (the last move marked) to an "
        ".svg or .png file.",
    ),
    "serve": Command(
        f"{_HERE}.web:ServeOptions",
        f"{_HERE}.web:serve",
        "a local web page to play any game against any agent (needs the web extra)",
        "Serve a page to play every game, with its parameters, against built-in agent specs and the checkpoints "
        "named here; agents think in worker processes under a per-move time cap. Binds 127.0.0.1.",
    ),
    "replay": Command(
        f"{_HERE}.web:ReplayOptions",
        f"{_HERE}.web:replay",
        "write an HTML replay of a game record: boardgym replay game.json|results.jsonl [-o out.html]",
        "Write a self-contained HTML page that steps through a game (buttons or arrow keys), with each move's "
        "time: from a record saved by `boardgym serve` or `boardgym evaluate --save-games`, or one game of a "
        "tournament's results.jsonl.",
    ),
    "evaluate": Command(
        f"{_HERE}.evaluate:EvaluateOptions",
        f"{_HERE}.evaluate:evaluate",
        "tournament between agents: leaderboard, Elo and TrueSkill, plots",
        "Round robin (or gauntlet) between agent specs, seats alternated, in worker processes (or Ray tasks: "
        "--backend ray); writes report.md, summary.json, results.jsonl and png plots to "
        "runs/GAME/evaluate/RUN-NAME/.",
    ),
    "grade": Command(
        f"{_HERE}.evaluate:GradeOptions",
        f"{_HERE}.evaluate:grade",
        "mistake rate of an agent on solved positions: boardgym grade GAME --agent SPEC",
        "Mistake rate of an agent on a fixed set of solved positions (see boardgym.evaluate.grade); writes "
        "grade.json and grade.md to runs/GAME/grade/RUN-NAME/.",
    ),
    "ladder": Command(
        f"{_HERE}.evaluate:LadderOptions",
        f"{_HERE}.evaluate:ladder",
        "the reference ladder of a two-player game: the built-in agents rated against each other",
        "Round robin of the game's built-in agents (its ladder in boardgym.games.GAMES): Elo with 95%% intervals "
        "(random = 0), mistake rates where the game has a graded position set, ms per move; writes ladder.md, "
        "ladder.json and the tournament report to runs/GAME/ladder/RUN-NAME/.",
    ),
    "docs": Command(
        f"{_HERE}.docs:DocsOptions",
        f"{_HERE}.docs:docs",
        "build the documentation site and serve it locally (the docs extra; in a source checkout)",
        "Build the site of mkdocs.yml strictly (a broken link or docstring reference is an error) into --site-dir, "
        "then serve it on http://HOST:PORT/ until Ctrl-C (--no-serve: build only).",
    ),
}

GROUPS: dict[str, tuple[Mapping[str, CommandEntry], str, str]] = {
    "train": (METHODS, "training method", "train an agent: boardgym train METHOD --game GAME [options]"),
    "bench": (BENCHES, "benchmark", "speed benchmarks against peer libraries"),
    "solve": (SOLVERS, "puzzle", "solve a puzzle or a game: boardgym solve setcover|blackbox|hex|quixo [options]"),
}
"""Commands that name an entry of a table and hand it the rest of the command line."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command not in GROUPS and extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command in GROUPS:
            return _run_group(args.command, args.entry, extra)
        command = COMMANDS[args.command]
        options = options_from_args(lookup_target(command.options), args)
        return int(lookup_target(command.run)(options) or 0)
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
    for name, command in COMMANDS.items():
        description = command.description or command.help
        add_options(sub.add_parser(name, help=command.help, description=description), lookup_target(command.options))
    for name, (table, kind, help_text) in GROUPS.items():
        group = sub.add_parser(name, help=help_text, add_help=False)
        group.add_argument("entry", nargs="?", metavar=kind.split()[-1].upper(), help=f"one of: {', '.join(table)}")
    return parser


def command_options() -> Iterator[tuple[list[str], type]]:
    """Every command's options class with the words that name the command (``["evaluate"]``,
    ``["train", "ppo"]``): what ``--help`` and the option checks cover."""
    for name, command in COMMANDS.items():
        yield [name], lookup_target(command.options)
    for name, (table, _, _) in GROUPS.items():
        for entry_name, entry in table.items():
            yield [name, entry_name], lookup_target(entry.options)


def lookup_target(target: str) -> Any:
    """What ``"module:attr"`` names (an options class, the function that runs a command)."""
    return load(target)


def _run_group(command: str, name: str | None, extra: list[str]) -> int:
    """``boardgym COMMAND NAME ...``: run the ``main(argv, prog)`` that the group's table names
    for ``NAME``, or list the table when no name (or only --help) is given."""
    table, kind, _ = GROUPS[command]
    usage = {"train": "METHOD --game GAME [options]", "bench": "BENCH [options]", "solve": "PUZZLE [options]"}[command]
    if name is None or name in ("-h", "--help"):
        word = usage.split()[0]
        print(f"usage: boardgym {command} {usage}   (boardgym {command} {word} --help for the options)")
        for key, entry in table.items():
            print(f"  {key:<12} {entry.summary}")
        return 0
    run = lookup(table, name, kind).load()
    return int(run(extra, prog=f"boardgym {command} {name}") or 0)


def known_tables() -> dict[str, dict[str, str]]:
    """What ``boardgym list`` shows: each table's names and summaries."""
    return {
        "games": {name: f"{entry.summary}  [gym id {gym_id(name)}]" for name, entry in GAMES.items()},
        "agents": {name: entry.summary for name, entry in AGENTS.items()},
        "methods": {name: entry.summary for name, entry in METHODS.items()},
        "benches": {name: entry.summary for name, entry in BENCHES.items()},
    }


__all__ = ["BENCHES", "COMMANDS", "GROUPS", "build_parser", "command_options", "main"]

if __name__ == "__main__":
    sys.exit(main())
