"""The README and the documentation pages (``docs/**/*.md``) as a user reads them: every
```python block runs as written (each in a fresh interpreter, in an empty folder), and every
shell command they show names subcommands, options, games, agents, extras and files that
exist. Commands are only parsed (with the CLI's own argparse parsers), never run."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardgym.agents.registry import AGENTS
from boardgym.cli import BENCHES, GROUPS, build_parser
from boardgym.games import GAMES
from boardgym.registry import lookup
from boardgym.solve import SOLVERS
from boardgym.train import METHODS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = {"README.md": README} | {
    str(path.relative_to(ROOT)): path.read_text() for path in sorted((ROOT / "docs").rglob("*.md"))
}
"""The README and every hand-written page of the site, by path."""

BUDGETS = {
    "model.learn(50_000)": "model.learn(64)",
    'opponent="random"), verbose=1)': 'opponent="random"), verbose=1, n_steps=64, batch_size=64, n_epochs=1)',
    "model.learn(49_152)": "model.learn(64)",
    'num_envs=256, opponent="random", seed=0)': 'num_envs=16, opponent="random", seed=0)',
}
"""The only changes made to a snippet before it runs: a training budget cut to one short rollout
(each must be found in one snippet, so the list cannot go stale)."""

PLACEHOLDERS = re.compile(r"\b(METHOD|GAME|BENCH|PUZZLE|COMMAND)\b|<[a-z-]+>|\[options\]|\.\.\.|\|")
"""What marks an inline span as a usage pattern rather than a command: a placeholder word, an
ellipsis or alternatives (`boardgym bench envs|search|...`)."""


def blocks(language: str, text: str = README) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def python_blocks() -> dict[str, str]:
    """Every ```python block of the README and the pages, by ``page:index``; a block shown on
    several pages runs once, under its first name."""
    found: dict[str, str] = {}
    for page, text in PAGES.items():
        for index, block in enumerate(blocks("python", text)):
            if block not in found.values():
                found[f"{page}:{index}"] = block
    return found


PYTHON_BLOCKS = python_blocks()


def test_the_budget_patches_are_found_in_the_snippets() -> None:
    for old in BUDGETS:
        assert sum(old in block for block in PYTHON_BLOCKS.values()) == 1, f"{old!r} is no longer in one snippet"


def test_the_readme_and_the_guides_show_snippets() -> None:
    assert any(name.startswith("README.md:") for name in PYTHON_BLOCKS)
    assert any(name.startswith("docs/guides/") for name in PYTHON_BLOCKS)


@pytest.mark.parametrize("name", sorted(PYTHON_BLOCKS))
def test_python_snippet_runs_as_written(name: str, tmp_path: Path) -> None:
    source = PYTHON_BLOCKS[name]
    for old, new in BUDGETS.items():
        source = source.replace(old, new)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-c", source], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"snippet {name} failed:\n{source}\n--- stderr ---\n{done.stderr[-3000:]}"


# -- shell commands -------------------------------------------------------------------------------
def shell_commands(text: str) -> Iterator[str]:
    """Each command of a page's ```bash blocks (continuation lines joined, `&&` chains
    split, usage brackets dropped) and each inline `boardgym ...` / `python ...` span without
    placeholders."""
    for block in blocks("bash", text):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.replace("[", " ").replace("]", " ").replace(" ...", " ")
            for command in line.split("&&"):
                if command.strip() and not command.strip().startswith("#"):
                    yield command.strip()
    for span in re.findall(r"`((?:boardgym|python) [^`]+)`", text):
        if not PLACEHOLDERS.search(span):
            yield span


class Parsed(Exception):
    """Raised in place of running a command once its parser has accepted the arguments."""


def parse_entry_main(main: object, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Call a ``main(argv, prog)`` until its argparse parser has read ``argv``, and no further."""
    original = argparse.ArgumentParser.parse_args

    def parse_args(self: argparse.ArgumentParser, args: object = None, namespace: object = None) -> object:
        original(self, args, namespace)  # type: ignore[arg-type]
        raise Parsed

    with monkeypatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
        with pytest.raises(Parsed):
            main(argv, prog="boardgym")  # type: ignore[operator]


def check_agent_specs(specs: list[str], command: str) -> None:
    for spec in specs:
        name = spec.partition(":")[0]
        assert name in AGENTS, f"README or docs page: {command!r} names agent {name!r}, which does not exist"


def check_names(argv: list[str], command: str) -> None:
    """`boardgym train alphazero` named in a sentence: the command and subcommand exist."""
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert argv[0] in commands, f"README or docs page: `{command}`: {argv[0]!r} is no boardgym command"
    tables = {"train": METHODS, "bench": BENCHES, "solve": SOLVERS, "list": ["games", "agents", "methods", "benches"]}
    if len(argv) > 1 and argv[0] in tables:
        assert argv[1] in tables[argv[0]], f"README or docs page: `{command}`: {argv[1]!r} is no {argv[0]} subcommand"


def check_boardgym(argv: list[str], command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if len(argv) <= 2 and not any(arg.startswith("-") for arg in argv):
        check_names(argv, command)
        return
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
    except SystemExit:
        pytest.fail(f"README or docs page: `{command}` is refused by boardgym's parser")
    if args.command not in GROUPS:
        assert not extra, f"README or docs page: `{command}` has options boardgym {args.command} does not know: {extra}"
    if args.command in ("play", "evaluate", "render"):
        assert args.game in GAMES, f"README or docs page: `{command}` names game {args.game!r}, which does not exist"
    if args.command == "play" and args.opponent is not None:
        check_agent_specs([args.opponent], command)
    if args.command == "evaluate":
        check_agent_specs(args.agents, command)
    tables = {"train": METHODS, "bench": BENCHES, "solve": SOLVERS}
    if args.command in tables:
        table, name = tables[args.command], args.entry
        assert name in table, f"README or docs page: `{command}`: {name!r} is no {args.command} subcommand"
        parse_entry_main(lookup(table, name, args.command).load(), extra, monkeypatch)


def check_pip(argv: list[str], command: str) -> None:
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    for arg in argv:
        found = re.fullmatch(r"\.\[([a-z,-]+)\]", arg)
        if found:
            missing = set(found.group(1).split(",")) - extras
            assert not missing, f"README or docs page: `{command}` asks for extras {missing} that pyproject.toml lacks"


def check_python(argv: list[str], command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if argv[:2] == ["-m", "pydoc"] or argv[:1] == ["-m"]:
        return
    script = ROOT / argv[0]
    assert script.is_file(), f"README or docs page: `{command}` runs {argv[0]}, which does not exist"
    if script.parent.name == "examples":
        spec = importlib.util.spec_from_file_location(f"example_{script.stem}", script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except ImportError as error:  # an optional library (RLlib, Tianshou): the file exists, that is all
            print(f"{script.name}: options not checked ({error})")
            return
        parse_entry_main(lambda argv, prog: module.main(argv), argv[1:], monkeypatch)
    if script.parent.name == "benchmarks":
        module = {"search_strength.py": "boardgym.bench.search_strength:main"}.get(script.name)
        if module is not None:
            from boardgym.registry import Entry

            parse_entry_main(Entry(module, "").load(), argv[1:], monkeypatch)


COMMANDS = sorted({command for text in PAGES.values() for command in shell_commands(text)})


def test_the_readme_and_the_pages_show_commands() -> None:
    assert len(COMMANDS) > 40 and any(c.startswith("boardgym train") for c in COMMANDS)
    assert any(c.startswith("boardgym train") for c in shell_commands(README))


@pytest.mark.parametrize("command", COMMANDS)
def test_shell_command_names_what_exists(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    words = shlex.split(command, comments=True)
    program, argv = words[0], words[1:]
    program = Path(program).name  # .venv/bin/boardgym, .venv-rllib/bin/pip ...
    if program == "boardgym":
        check_boardgym(argv, command, monkeypatch)
    elif program == "pip" or (program == "python3" and argv[:2] == ["-m", "venv"]):
        check_pip(argv, command)
    elif program == "python":
        check_python(argv, command, monkeypatch)


def test_ci_runs_the_readme_s_test_commands() -> None:
    """.ci/run runs the README's test commands (pip quiet there), the same in substance."""
    ci = (ROOT / ".ci" / "run").read_text().replace(" -q ", " ")
    quick_start = [line for line in blocks("bash")[0].splitlines() if line and not line.startswith("#")]
    assert len(quick_start) == 2, "the quick start is exactly two commands: the main job, then the tests"
    tests = [line for line in quick_start if line.startswith("python3 -m venv") and "pytest" in line]
    assert len(tests) == 1
    for line in tests:
        assert line in ci, f".ci/run does not run the README's `{line}`"


def test_the_quick_start_runs_without_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quick start's boardgym commands, as written (the venv's path dropped), in an empty
    folder: each ends with status 0 and nothing in what they print warns."""
    from boardgym.cli import main

    first = [line for line in blocks("bash")[0].splitlines() if line and not line.startswith("#")][0]
    commands = [shlex.split(part) for part in first.split("&&")]
    boardgym = [words[1:] for words in commands if Path(words[0]).name == "boardgym"]
    assert [argv[0] for argv in boardgym] == ["train", "evaluate"]
    monkeypatch.chdir(tmp_path)
    for argv in boardgym:
        assert main([*argv, "--no-progress"] if argv[0] == "train" else argv) == 0
    out, err = capsys.readouterr()
    said = (out + err).lower()
    assert "play it: qlearning:checkpoint=" in said and "600 distinct games of 600" in said
    assert "warning" not in said and "differ from each other" not in said
