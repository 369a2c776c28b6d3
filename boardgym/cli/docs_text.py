"""The text the documentation site generates from the code: docstrings' reST-like notation
as Markdown, a command's options table (from the same dataclass fields as ``--help``), an
agent family's spec keys and a training method's page (``boardgym.cli.docs`` places them)."""

from __future__ import annotations

import dataclasses
import inspect
import re
import textwrap
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.config import flag_of, rules_of
from boardgym.types import BoardgymError

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
