"""The package's layers hold by construction: no module imports a layer above its own, no
imports go round in a cycle, and the pure rules load without gymnasium, pettingzoo or torch.

The layers, lowest first, are written once, in docs/architecture.md ("Import order"); this test
reads them from there. Every import counts, at module level or inside a function: a
function-level import does not make an upward dependency any less real.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import boardgym
from boardgym.games import GAMES

PACKAGE = Path(boardgym.__file__).parent
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def read_layers(text: str) -> dict[str, int]:
    """``{"boardgym.types": 0, ...}`` from the doc's "Import order" line: the modules in
    backticks, ``->`` between layers, ``,`` between the modules of one layer. The package root
    sits with the CLI, on top."""
    found = re.search(r"Import order.*?`([^`]*->[^`]*)`", text, re.DOTALL)
    assert found, "docs/architecture.md has no 'Import order' line with the layers in backticks"
    layers: dict[str, int] = {}
    for number, layer_text in enumerate(found.group(1).split("->")):
        for name in layer_text.split(","):
            layers[f"boardgym.{name.strip()}"] = number
    layers["boardgym"] = layers["boardgym.cli"]
    return layers


LAYERS: dict[str, int] = read_layers(ARCHITECTURE.read_text())


def test_the_layers_are_read_from_the_architecture_doc() -> None:
    assert LAYERS["boardgym.types"] == 0 and LAYERS["boardgym.cli"] == max(LAYERS.values())
    assert LAYERS["boardgym.games"] < LAYERS["boardgym.config"] < LAYERS["boardgym.agents"]
    assert LAYERS["boardgym.bench"] == LAYERS["boardgym.web"]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    """The layer of a module: that of its longest prefix in ``LAYERS``."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")


def imports_of(path: Path, name: str | None = None) -> set[str]:
    """The boardgym modules that ``path`` (the module ``name``) imports, anywhere in the file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            # ``from boardgym.envs import quixo_v0`` imports a module, not a name
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                if _exists(candidate):
                    found.add(candidate)
    return {name for name in found if name == "boardgym" or name.startswith("boardgym.")}


def _exists(module: str) -> bool:
    relative = Path(*module.split("."))
    return (PACKAGE.parent / relative).with_suffix(".py").is_file() or (
        PACKAGE.parent / relative / "__init__.py"
    ).is_file()


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: imports_of(path) - {name} for name, path in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        layer(name)


def test_no_module_imports_upward() -> None:
    upward = [
        f"{name} (layer {layer(name)}) imports {target} (layer {layer(target)})"
        for name, targets in GRAPH.items()
        for target in sorted(targets)
        if layer(target) > layer(name)
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_no_import_cycles() -> None:
    # A package's __init__ runs before any of its modules, so ``pkg`` -> ``pkg.mod`` edges are
    # how packages re-export; the cycles that matter are between modules.
    edges = {
        name: {t for t in targets if t in MODULES and not name.startswith(t + ".") and not t.startswith(name + ".")}
        for name, targets in GRAPH.items()
    }
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_check_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from boardgym.train import qlearning\n    from ..agents import base\n")
    found = imports_of(source, "boardgym.games.probe")
    assert {"boardgym.train.qlearning", "boardgym.agents.base"} <= found
    assert all(layer(target) > layer("boardgym.games.probe") for target in found)


@pytest.mark.parametrize("game", [name for name in GAMES])
def test_rules_load_without_gymnasium_pettingzoo_or_torch(game: str) -> None:
    module = GAMES[game].target.partition(":")[0]
    code = (
        "import sys, importlib\n"
        f"importlib.import_module({module!r})\n"
        "import boardgym\n"
        f"boardgym.make_game({game!r})\n"
        "heavy = [m for m in ('gymnasium', 'pettingzoo', 'torch') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "", f"importing {module} loaded {result.stdout.strip()}"
