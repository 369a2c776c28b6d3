"""docs/guides/bring-your-model.md names only agents, functions and examples that exist, and
every example it lists prints the command that ranks its model."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from boardgym.agents.registry import AGENTS

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "guides" / "bring-your-model.md").read_text()


def test_the_specs_the_page_names_are_agents() -> None:
    specs = set(re.findall(r"`([a-z]+):checkpoint=", PAGE))
    assert specs >= {"ppo", "torch", "tianshou"}
    assert specs <= set(AGENTS)


def test_the_functions_the_page_names_exist() -> None:
    names = set(re.findall(r"boardgym\.(?:agents|envs|evaluate)\.[a-z_.]+\.[a-z_]+", PAGE))
    assert "boardgym.agents.torch_policy.save_policy" in names
    for name in names - {"boardgym.envs.rllib.save_module"}:  # the RLlib module needs the rllib extra
        module, _, attr = name.rpartition(".")
        assert hasattr(importlib.import_module(module), attr), name
    rllib = (ROOT / "boardgym" / "envs" / "rllib.py").read_text()
    assert "def save_module(" in rllib


def test_every_example_in_the_table_saves_and_prints_its_command() -> None:
    examples = set(re.findall(r"`([a-z0-9_]+\.py)`", PAGE))
    assert examples == {path.name for path in (ROOT / "examples").glob("*.py")}
    for name in examples:
        text = (ROOT / "examples" / name).read_text()
        assert "report(args.game, path, before, after" in text, name  # measure.report prints the command
    report = (ROOT / "boardgym" / "evaluate" / "measure.py").read_text()
    assert "the same games, ranked by boardgym:" in report and '"evaluate":' in report
