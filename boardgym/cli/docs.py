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

import functools
import http.server
import logging
import os
import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.cli.docs_games import demo_gif_cached, game_section
from boardgym.cli.docs_text import (
    OptionRow,
    SpecKey,
    _cell,
    agent_families,
    agent_section,
    commands_section,
    method_section,
    option_rows,
    options_class,
    options_table,
    rst_to_markdown,
    spec_keys,
)
from boardgym.config import Options, option
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


# -- lists --------------------------------------------------------------------------------------
def list_section(what: str, base: str = "") -> str:
    """A table of the games, agents or methods, each linking to its page (``base``: the path
    from the page that shows the table to the site's root, e.g. ``../``)."""
    from boardgym.agents.registry import AGENTS
    from boardgym.games import GAMES, gym_id
    from boardgym.train import METHODS

    if what == "games":
        rows = ["| | game | gym id | what |", "|---|---|---|---|"]
        rows += [
            f'| [![{n}]({base}games/{n}.png){{ width="120" }}]({base}games/{n}.md) | [{n}]({base}games/{n}.md) | '
            f"`{gym_id(n)}` | {_cell(e.summary)} |"
            for n, e in GAMES.items()
        ]
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
    """Add the generated pages, each game's GIF and its picture (the games' index) to the
    build's files."""
    from mkdocs.structure.files import File

    docs_dir = Path(config["docs_dir"])
    for path, text in generated_pages(docs_dir).items():
        files.append(File.generated(config, path, content=text))
    for name in game_names():
        demo = demo_gif_cached(name)
        files.append(File.generated(config, f"games/{name}.gif", content=demo.gif))
        files.append(File.generated(config, f"games/{name}.png", content=demo.picture))
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
