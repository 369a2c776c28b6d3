"""``boardgym docs`` and the pages the documentation site generates when it is built.

The site is ``mkdocs.yml`` at the repository root over ``docs/`` (mkdocs-material, the API
reference by mkdocstrings). ``docs/hooks.py`` hands the build to this module, which adds:

- the landing page (``index.md``), made from ``README.md`` with its ``docs/`` links made
  relative to the site, so that every link of the README is checked by the strict build;
- a page per game (``games/<game>.md``: the env module's docstring, the parameters, the
  actions at the start in typed form, the observation's shape and an animated GIF of a short
  seeded game between two agents drawn by ``boardgym.draw``), per agent family
  (``agents/<name>.md``: the spec keys from the class's signature) and per training method
  (``training/<method>.md``: the options table from its ``Config``), for every entry of
  ``GAMES``, ``AGENTS`` and ``METHODS`` that has no hand-written page;
- the tables a page asks for with a marker line, where the marker stands:
  ``<!-- boardgym:game NAME -->``, ``<!-- boardgym:agent NAME -->``,
  ``<!-- boardgym:options WORDS -->`` (a command's options, e.g. ``train alphazero``),
  ``<!-- boardgym:commands -->`` (every command's options) and ``<!-- boardgym:list
  games|agents|methods -->``.

The options tables are built from the same dataclass fields (``boardgym.config``) as the
command line's ``--help``, so they cannot drift from it; ``tests/docs/test_site.py`` compares
them.
"""

from __future__ import annotations

import dataclasses
import functools
import http.server
import inspect
import io
import logging
import os
import re
import sys
import textwrap
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.config import Options, flag_of, option, rules_of
from boardgym.types import BoardgymError

ROOT = Path(__file__).resolve().parents[2]
"""The repository root of a source checkout (where ``mkdocs.yml`` and ``docs/`` are)."""


@dataclass(frozen=True)
class DocsOptions(Options):
    """Build the documentation site strictly (the docs extra) and serve it on this machine."""

    port: int = option(8001, "port to serve the site on", minimum=1, maximum=65535)
    host: str = option("127.0.0.1", "address to bind (127.0.0.1: this machine only)")
    site_dir: Path = option(Path("site"), "folder the site is built into", metavar="DIR")
    serve: bool = option(True, "serve the site after building it (--no-serve: build only)")
    config: Path | None = option(
        None, "the site's mkdocs.yml (default: the one of this source checkout)", metavar="FILE"
    )


def docs(options: DocsOptions) -> int:
    site = build_site(options.config, options.site_dir)
    if not options.serve:
        print(f"built {site}")
        return 0
    with site_server(site, options.host, options.port) as server:
        print(f"built {site}; serving it on http://{options.host}:{server.server_port}/ (Ctrl-C stops)", flush=True)
        server.serve_forever()
    return 0


def site_server(site: Path, host: str, port: int) -> http.server.ThreadingHTTPServer:
    """An HTTP server of the built site's files (port 0: any free port)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    try:
        return http.server.ThreadingHTTPServer((host, port), handler)
    except OSError as error:
        raise BoardgymError(f"cannot serve the site on {host}:{port} ({error.strerror}): pass another --port") from None


def build_site(config: Path | None, site_dir: Path, strict: bool = True) -> Path:
    """Build the site of ``config`` (default: this checkout's ``mkdocs.yml``) into ``site_dir``,
    strictly: a broken link, a missing page or a docstring reference that does not resolve is
    one error naming what to fix."""
    config = config or ROOT / "mkdocs.yml"
    if not config.is_file():
        raise BoardgymError(
            f"no site configuration at {config}: the site builds from a source checkout "
            "(run boardgym docs in the repository, or pass --config path/to/mkdocs.yml)"
        )
    try:
        from mkdocs.commands.build import build
        from mkdocs.config import load_config
        from mkdocs.exceptions import Abort, ConfigurationError
    except ImportError:
        raise BoardgymError('the site needs mkdocs and its plugins: pip install -e ".[docs]"') from None
    site = site_dir.resolve()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # mkdocs-material's notice about its successor
    warnings = _WarningLog()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(warnings)
    try:
        build(load_config(str(config), site_dir=str(site), strict=strict))
    except (Abort, ConfigurationError) as error:
        said = "; ".join(warnings.messages)
        raise BoardgymError(f"the site did not build: {error}" + (f" ({said})" if said else "")) from None
    finally:
        logger.removeHandler(warnings)
    return site


class _WarningLog(logging.Handler):
    """The warnings of a build, kept so that a strict build's failure names them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(" ".join(record.getMessage().split()))


# -- text: the docstrings' reST-like notation as Markdown -----------------------------------------
_SIMPLE_TABLE_RULE = re.compile(r"^=+(\s+=+)+\s*$")


def rst_to_markdown(text: str) -> str:
    """A docstring as Markdown: ``code`` spans, literal blocks after ``::`` as fenced code, and
    two-column simple tables (``====  ====`` rules) as Markdown tables."""
    lines = inspect.cleandoc(text).splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _SIMPLE_TABLE_RULE.match(line):
            i = _table(lines, i, out)
            continue
        if line.rstrip().endswith("::"):
            lead = line.rstrip()[:-2].rstrip()
            if lead:
                out.append(_inline(lead + ":"))
            i += 1
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", "```text", textwrap.dedent("\n".join(block)).strip("\n"), "```", ""]
            continue
        out.append(_inline(line))
        i += 1
    return "\n".join(out).strip() + "\n"


def _inline(line: str) -> str:
    return re.sub(r"``(.+?)``", r"`\1`", line)


def _table(lines: list[str], start: int, out: list[str]) -> int:
    """A simple table from ``lines[start]`` (its first rule) to its closing rule."""
    split = lines[start].index(" ")
    rows: list[list[str]] = []
    i = start + 1
    while i < len(lines) and not _SIMPLE_TABLE_RULE.match(lines[i]):
        key, value = lines[i][:split].strip(), lines[i][split:].strip()
        if key or not rows:
            rows.append([key, value])
        elif value:
            rows[-1][1] += " " + value
        i += 1
    out += ["", "| | |", "|---|---|"]
    out += [f"| {_inline(key)} | {_inline(value).replace('|', '&#124;')} |" for key, value in rows]
    out.append("")
    return i + 1


def _cell(text: str) -> str:
    return text.replace("|", "&#124;").replace("\n", " ")


def _code(value: Any) -> str:
    return f"`{value}`" if value not in ("", None) else "–"


# -- options tables -----------------------------------------------------------------------------
@dataclass(frozen=True)
class OptionRow:
    """One option of a command as its page shows it: how it is typed, its default, its rules
    and its help (the same help ``--help`` prints)."""

    flag: str
    default: str
    rules: str
    help: str


def option_rows(options_cls: type) -> list[OptionRow]:
    """The options of a command's dataclass, in the order ``--help`` lists them."""
    hints = typing.get_type_hints(options_cls)
    rows = []
    for field in dataclasses.fields(options_cls):
        meta = rules_of(options_cls, field)
        if meta.get("game_params"):
            rows.append(OptionRow("-p KEY=VALUE", "", "repeatable", meta.get("help", "")))
            continue
        flag = flag_of(field, meta)
        annotation = hints[field.name]
        if not meta.get("positional") and _is_bool(annotation):
            flag = f"{flag} / --no-{flag[2:]}"
        elif meta.get("short"):
            flag = f"{meta['short']}, {flag}"
        rows.append(OptionRow(flag, _default(field, meta), _rules(annotation, meta), meta.get("help", "")))
    return rows


def _is_bool(annotation: Any) -> bool:
    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    return args == [bool]


def _default(field: dataclasses.Field[Any], meta: typing.Mapping[str, Any]) -> str:
    if field.default is dataclasses.MISSING or meta.get("required"):
        return "required"
    value = field.default
    if isinstance(value, tuple):
        return ",".join(map(str, value)) if value else "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return "(none)" if value is None else str(value)


def _rules(annotation: Any, meta: typing.Mapping[str, Any]) -> str:
    names = {int: "whole number", float: "number", str: "text", bool: "true/false", Path: "path"}
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    base = args[0] if typing.get_origin(annotation) is not tuple and args else annotation
    parts = [names.get(base, "list" if typing.get_origin(base) is tuple else getattr(base, "__name__", str(base)))]
    if meta.get("choices"):
        parts = ["one of " + ", ".join(meta["choices"])]
    for key, sign in (("minimum", ">="), ("above", ">"), ("maximum", "<=")):
        if meta.get(key) is not None:
            parts.append(f"{sign} {_number(meta[key])}")
    if meta.get("many"):
        parts.append("one or more")
    if meta.get("repeat"):
        parts.append("repeatable")
    return ", ".join(parts)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def options_table(options_cls: type) -> str:
    lines = ["| option | default | accepts | what it does |", "|---|---|---|---|"]
    for row in option_rows(options_cls):
        lines.append(f"| `{row.flag}` | {_code(row.default)} | {_cell(row.rules)} | {_cell(row.help)} |")
    return "\n".join(lines) + "\n"


def options_class(words: Sequence[str]) -> type:
    """The options class of ``boardgym WORDS`` (``["evaluate"]``, ``["train", "ppo"]``)."""
    from boardgym.cli import command_options

    for named, cls in command_options():
        if named == list(words):
            return cls
    raise BoardgymError(f"no command 'boardgym {' '.join(words)}' for an options table")


def commands_section() -> str:
    """Every command's options, one section a command."""
    from boardgym.cli import command_options

    parts = []
    for words, cls in command_options():
        summary = inspect.getdoc(cls) or ""
        parts.append(f"## `boardgym {' '.join(words)}`\n\n{summary.splitlines()[0] if summary else ''}\n")
        parts.append(options_table(cls))
    return "\n".join(parts)


# -- agents -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SpecKey:
    """One key of an agent spec: its name, type and default."""

    name: str
    type: str
    default: str


def agent_families() -> dict[str, list[str]]:
    """The agents grouped by the class that plays them (``qlearning`` and ``montecarlo`` share
    one), by the first name of each group."""
    from boardgym.agents.registry import AGENTS

    families: dict[str, list[str]] = {}
    by_target: dict[str, str] = {}
    for name, entry in AGENTS.items():
        first = by_target.setdefault(entry.target, name)
        families.setdefault(first, []).append(name)
    return families


def spec_keys(name: str) -> list[SpecKey]:
    """The keys an agent spec takes (those ``make_agent`` reads) with their defaults."""
    from boardgym.agents.registry import agent_class, spec_parameters

    cls = agent_class(name)
    signature = inspect.signature(cls.__init__)  # type: ignore[misc]  # the class's own constructor
    keys = []
    for key, kind in spec_parameters(cls).items():
        default = signature.parameters[key].default
        shown = "required" if default is inspect.Parameter.empty else "(none)" if default is None else str(default)
        if isinstance(default, bool):
            shown = str(default).lower()
        keys.append(SpecKey(key, kind.__name__, shown))
    return keys


def agent_section(name: str) -> str:
    from boardgym.agents.registry import AGENTS, agent_class

    names = agent_families().get(name, [name])
    cls = agent_class(name)
    lines = [f"`{cls.__module__}.{cls.__qualname__}`; in `boardgym list agents` as:", ""]
    lines += [f"- `{n}`: {AGENTS[n].summary}" for n in names]
    keys = spec_keys(name)
    lines += ["", "## Spec keys", ""]
    if keys:
        lines += [f"`{names[0]}:" + ",".join(f"{k.name}=..." for k in keys[:2]) + "`", ""]
        lines += ["| key | type | default |", "|---|---|---|"]
        lines += [f"| `{k.name}` | {k.type} | {_code(k.default)} |" for k in keys]
    else:
        lines.append(f"None: the spec is the name alone (`{names[0]}`).")
    doc = inspect.getdoc(cls)
    if doc:
        lines += ["", "## What it does", "", rst_to_markdown(doc)]
    return "\n".join(lines) + "\n"


# -- games --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Demo:
    """The short game a game's page shows: its parameters and the agents' specs, one a player."""

    params: dict[str, Any]
    agents: tuple[str, ...]
    seed: int = 0


DEMOS: dict[str, Demo] = {
    "tictactoe": Demo({}, ("mcts:simulations=50", "minimax:depth=2")),
    "connect_four": Demo({}, ("minimax:depth=2", "mcts:simulations=100")),
    "nim": Demo({}, ("mcts:simulations=50", "nimsum")),
    "quixo": Demo({}, ("minimax:depth=1", "mcts:simulations=50")),
    "quarto": Demo({}, ("minimax:depth=1", "mcts:simulations=50")),
    "hex": Demo({"size": 7}, ("minimax:depth=1", "mcts:simulations=100")),
    "rastros": Demo({}, ("minimax:depth=2", "mcts:simulations=50")),
    "setcover": Demo({"problem_size": 12, "num_sets": 16, "density": 0.25, "seed": 1}, ("greedy",)),
    "blackbox": Demo({"instance": 5, "genome_length": 40}, ("random",)),
}
"""Each game's demo; a game not named here plays its defaults, MCTS against random."""

MAX_DEMO_MOVES = 60


def demo_of(name: str) -> Demo:
    from boardgym.games import GAMES

    if name in DEMOS:
        return DEMOS[name]
    players = GAMES[name].load().num_players
    return Demo({}, ("mcts:simulations=50", "random")[:players] if players <= 2 else ("random",) * players)


def demo_gif(name: str) -> tuple[bytes, str]:
    """An animated GIF of the demo game of ``name`` drawn by ``boardgym.draw``, and a sentence
    saying who played and how it ended."""
    from PIL import Image

    from boardgym import draw
    from boardgym.agents.registry import make_agent
    from boardgym.games import make_game

    demo = demo_of(name)
    game = make_game(name, **demo.params)
    agents = [make_agent(spec, game, seed=demo.seed + i) for i, spec in enumerate(demo.agents)]
    state, history = game.initial_state(), list[int]()
    frames = [draw.png(game, state)]
    while not game.is_terminal(state) and len(history) < MAX_DEMO_MOVES:
        action = agents[game.current_player(state) % len(agents)].act(game, state)
        state = game.apply(state, action)
        history.append(action)
        frames.append(draw.png(game, state, history))
    # a fast octree palette a frame: a quarter of the time of the GIF writer's own quantizer
    images = [
        Image.open(io.BytesIO(frame)).convert("RGB").quantize(colors=128, method=Image.Quantize.FASTOCTREE)
        for frame in frames
    ]
    out = io.BytesIO()
    durations = [700] * (len(images) - 1) + [3000]
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
    sides = draw.side_names(game)
    if game.num_players == 1:
        players = f"`{demo.agents[0]}`"
    else:
        players = ", ".join(f"`{spec}` ({side})" for spec, side in zip(demo.agents, sides, strict=False))
    ended = "game over" if game.is_terminal(state) else f"the first {len(history)} moves"
    returns = ", ".join(f"{r:g}" for r in game.returns(state))
    params = ", ".join(f"{k}={v}" for k, v in demo.params.items())
    caption = (
        f"{players}{' on ' + params if params else ''} (agents seeded from {demo.seed}): {len(history)} moves, "
        f"{ended}, returns {returns}."
    )
    return out.getvalue(), caption


def game_section(name: str) -> str:
    """The generated part of a game's page (everything below its title)."""
    from boardgym.games import GAMES, game_class, game_parameters, gym_id, make_game

    entry = GAMES[name]
    cls = game_class(name)
    game = make_game(name)
    lines = [f"{entry.summary[:1].upper()}{entry.summary[1:]}.", ""]
    lines += ["| | |", "|---|---|", f"| `make_game` name | `{name}` |", f"| Gymnasium id | `{gym_id(name)}` |"]
    if entry.env:
        lines.append(f"| PettingZoo env | `{entry.env}.env()` |")
    lines.append(f"| players | {game.num_players} |")
    lines.append(f"| batched rules | {'yes' if entry.batched else 'no'} |")
    lines += ["", f"![A short game of {name}]({name}.gif)", "", f"*{demo_gif_caption(name)}*", ""]

    signature = inspect.signature(cls.__init__)
    params = game_parameters(cls)
    lines += ["## Parameters", ""]
    if params:
        takers = "`make_game`, `gym.make`" + (", the AEC `env()`" if entry.env else "")
        lines += [f"{takers}; on the command line `-p KEY=VALUE`.", ""]
        lines += ["| parameter | type | default |", "|---|---|---|"]
        for key in params:
            default = signature.parameters[key].default
            hint = typing.get_type_hints(cls.__init__).get(key, Any)
            lines.append(f"| `{key}` | `{_type_name(hint)}` | `{default!r}` |")
    else:
        lines.append("None.")
    lines += ["", "## Actions at the start", ""]
    state = game.initial_state()
    legal = game.legal_actions(state)
    lines += [
        f"{len(legal)} legal of {game.num_actions}; the first as action = typed form (what `boardgym play` reads):",
        "",
    ]
    lines.append(
        ", ".join(f"{a} = `{game.action_to_str(state, a)}`" for a in legal[:12]) + ("..." if len(legal) > 12 else ".")
    )
    planes = game.observation(state, game.current_player(state))
    lines += ["", "## Observation", "", f"`{planes.dtype}` planes of shape `{tuple(planes.shape)}` at the defaults."]
    manual = entry.env or entry.gym_entry_point.partition(":")[0]
    module = sys.modules.get(manual) or __import__(manual, fromlist=["_"])
    if module.__doc__:
        lines += ["", "## Manual", "", f"The docstring of `{manual}`.", "", rst_to_markdown(module.__doc__)]
    if entry.heuristics or entry.ladder:
        lines += ["## Agents", ""]
        if entry.heuristics:
            evals = ", ".join(f"`{e}`" for e in entry.heuristics)
            lines.append(f"- `minimax:eval=...`: {evals} (the first is the default), and `random`.")
        if entry.ladder:
            lines.append("- The reference ladder (`boardgym ladder`): " + ", ".join(f"`{s}`" for s in entry.ladder))
    return "\n".join(lines) + "\n"


@functools.cache
def _demo(name: str) -> tuple[bytes, str]:
    return demo_gif(name)


def demo_gif_caption(name: str) -> str:
    return _demo(name)[1]


def _type_name(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "").replace("collections.abc.", "")


# -- training methods ---------------------------------------------------------------------------
def method_section(name: str) -> str:
    from boardgym.train import METHODS

    entry = METHODS[name]
    lines = [
        f"{entry.summary[:1].upper()}{entry.summary[1:]}.",
        "",
        f"`boardgym train {name} --game GAME [options]` (or `python -m boardgym.train.{name}`); its `final.pt` "
        f"plays as `{entry.agent}:checkpoint=runs/GAME/{name}/RUN/final.pt` "
        f"([the agent](../agents/{agent_page(entry.agent)}.md)).",
        "",
        "## Options",
        "",
        f"`boardgym train {name} --help` lists the same.",
        "",
        options_table(options_class(["train", name])),
    ]
    return "\n".join(lines)


def agent_page(name: str) -> str:
    """The page (the family's first name) that documents agent ``name``."""
    for first, names in agent_families().items():
        if name in names:
            return first
    raise BoardgymError(f"no agent {name!r}")


# -- lists --------------------------------------------------------------------------------------
def list_section(what: str, base: str = "") -> str:
    """A table of the games, agents or methods, each linking to its page (``base``: the path
    from the page that shows the table to the site's root, e.g. ``../``)."""
    from boardgym.agents.registry import AGENTS
    from boardgym.games import GAMES, gym_id
    from boardgym.train import METHODS

    if what == "games":
        rows = ["| game | gym id | what |", "|---|---|---|"]
        rows += [f"| [{n}]({base}games/{n}.md) | `{gym_id(n)}` | {_cell(e.summary)} |" for n, e in GAMES.items()]
    elif what == "agents":
        rows = ["| agent | spec names | what |", "|---|---|---|"]
        for first, names in agent_families().items():
            rows.append(
                f"| [{first}]({base}agents/{first}.md) | {', '.join(f'`{n}`' for n in names)} | "
                f"{_cell(AGENTS[first].summary)} |"
            )
    elif what == "methods":
        rows = ["| method | agent | what |", "|---|---|---|"]
        rows += [f"| [{n}]({base}training/{n}.md) | `{e.agent}` | {_cell(e.summary)} |" for n, e in METHODS.items()]
    else:
        raise BoardgymError(f"<!-- boardgym:list {what} -->: list games, agents or methods")
    return "\n".join(rows) + "\n"


# -- the mkdocs hooks ---------------------------------------------------------------------------
_MARKER = re.compile(r"^<!-- boardgym:(\w+)\s*([^>]*?)\s*-->\s*$", re.M)


def generated_pages(docs_dir: Path) -> dict[str, str]:
    """The pages the build adds, by path in the site: the landing page from the README and a
    page of markers for each game, agent family and method without a hand-written page."""
    from boardgym.games import GAMES
    from boardgym.train import METHODS

    pages = {"index.md": readme_as_index((ROOT / "README.md").read_text())}
    if (ROOT / "CHANGELOG.md").is_file():
        pages["changelog.md"] = (ROOT / "CHANGELOG.md").read_text()
    titles = {name: _title(name) for name in GAMES}
    for name in GAMES:
        pages[f"games/{name}.md"] = f"# {titles[name]}\n\n<!-- boardgym:game {name} -->\n"
    for first, names in agent_families().items():
        pages[f"agents/{first}.md"] = f"# {', '.join(names)}\n\n<!-- boardgym:agent {first} -->\n"
    for name in METHODS:
        pages[f"training/{name}.md"] = f"# `{name}`\n\n<!-- boardgym:method {name} -->\n"
    return {path: text for path, text in pages.items() if not (docs_dir / path).exists()}


def _title(name: str) -> str:
    from boardgym.games import GAMES

    title = GAMES[name].summary.split(",")[0].split("(")[0].strip() or name
    return title[:1].upper() + title[1:]


def readme_as_index(readme: str) -> str:
    """The README as the site's landing page: links into ``docs/`` made relative to the site,
    and the link to ``CHANGELOG.md`` made one to the site's changelog page."""
    return re.sub(r'(\]\(|src=")docs/', r"\1", readme).replace("](CHANGELOG.md)", "](changelog.md)")


_REPOSITORY_ONLY = re.compile(r"^<!-- repository-only -->\n.*?^<!-- /repository-only -->\n?", re.S | re.M)
"""A block of a page read in the repository only (on GitHub, where the generated sections are
not there yet); the site drops it."""


def expand_markers(markdown: str, page_path: str) -> str:
    """Every marker of a page replaced by what it names."""
    depth = page_path.count("/")
    base = "../" * depth

    def expand(found: re.Match[str]) -> str:
        from boardgym.agents.registry import AGENTS
        from boardgym.games import GAMES
        from boardgym.train import METHODS

        kind, argument = found.group(1), found.group(2).strip()
        if kind == "game":
            return game_section(_known(GAMES, argument, kind))
        if kind == "agent":
            return agent_section(_known(AGENTS, argument, kind))
        if kind == "method":
            return method_section(_known(METHODS, argument, kind))
        if kind == "options":
            return options_table(options_class(argument.split()))
        if kind == "commands":
            return commands_section()
        if kind == "list":
            return list_section(argument, base)
        raise BoardgymError(f"{page_path}: unknown marker <!-- boardgym:{kind} -->")

    return _MARKER.sub(expand, markdown)


def _known(table: typing.Mapping[str, Any], name: str, kind: str) -> str:
    """``name`` if ``table`` has it, else one sentence naming the marker and what exists."""
    if name not in table:
        raise BoardgymError(f"<!-- boardgym:{kind} {name} -->: no {kind} {name!r}; there are: {', '.join(table)}")
    return name


def game_names() -> Iterator[str]:
    from boardgym.games import GAMES

    yield from GAMES


def hook_on_config(config: Any) -> Any:
    """Fill the nav's folder entries (``- Games: games/``) with the folder's index page and a
    page per game, agent family or method, so that a new game gets its page in the nav."""
    from boardgym.train import METHODS

    pages = {
        "games/": [f"games/{name}.md" for name in game_names()],
        "agents/": [f"agents/{first}.md" for first in agent_families()],
        "training/": [f"training/{name}.md" for name in METHODS],
    }

    def fill(items: Any) -> Any:
        if isinstance(items, list):
            return [fill(item) for item in items]
        if isinstance(items, dict):
            return {title: fill(value) for title, value in items.items()}
        if isinstance(items, str) and items in pages:
            return [f"{items}index.md", *pages[items]]
        return items

    config["nav"] = fill(config["nav"])
    return config


def hook_on_files(files: Any, config: Any) -> Any:
    """Add the generated pages and each game's GIF to the build's files."""
    from mkdocs.structure.files import File

    docs_dir = Path(config["docs_dir"])
    for path, text in generated_pages(docs_dir).items():
        files.append(File.generated(config, path, content=text))
    for name in game_names():
        files.append(File.generated(config, f"games/{name}.gif", content=_demo(name)[0]))
    listed = set(_nav_pages(config["nav"]))
    unlisted = sorted(f.src_uri for f in files.documentation_pages() if f.src_uri not in listed)
    if unlisted:  # a page added to docs/ without a line in mkdocs.yml's nav still has a place
        config["nav"].append({"More": unlisted})
    return files


def _nav_pages(items: Any) -> Iterator[str]:
    if isinstance(items, str):
        yield items
    elif isinstance(items, list):
        for item in items:
            yield from _nav_pages(item)
    elif isinstance(items, dict):
        for value in items.values():
            yield from _nav_pages(value)


def hook_on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    try:
        return expand_markers(_REPOSITORY_ONLY.sub("", markdown), page.file.src_uri)
    except BoardgymError as error:
        from mkdocs.exceptions import PluginError

        raise PluginError(str(error)) from None


__all__ = [
    "DocsOptions",
    "OptionRow",
    "SpecKey",
    "agent_families",
    "build_site",
    "docs",
    "expand_markers",
    "generated_pages",
    "option_rows",
    "options_table",
    "rst_to_markdown",
    "spec_keys",
]
