"""docs/ray-cluster.yaml is a cluster config that Ray's launcher accepts, and docs/cluster.md
names only options and commands that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from boardgym.cli.evaluate import EvaluateOptions
from boardgym.config import field_named, rules_of
from boardgym.train.alphazero import Config

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_cluster_yaml_passes_ray_s_own_checks() -> None:
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'boardgym[ray]'")
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the cluster file")
    util = pytest.importorskip("ray.autoscaler._private.util", reason="this Ray has no cluster launcher")
    config = yaml.safe_load((DOCS / "ray-cluster.yaml").read_text())
    prepared = util.prepare_config(config)  # what `ray up` does before it starts anything
    util.validate_config(prepared)
    assert prepared["provider"]["type"] == "local"
    assert len(config["provider"]["worker_ips"]) == config["min_workers"] == config["max_workers"] == 7
    starts = " ".join(config["head_start_ray_commands"] + config["worker_start_ray_commands"])
    assert "--head --port=6379" in starts and "--address=$RAY_HEAD_IP:6379" in starts


def test_the_recipe_names_options_that_exist() -> None:
    text = (DOCS / "cluster.md").read_text()
    assert rules_of(EvaluateOptions, field_named(EvaluateOptions, "backend"))["choices"] == ("local", "ray")
    fields = {"--" + name.replace("_", "-") for name in Config.__dataclass_fields__}
    for option in set(re.findall(r"boardgym train alphazero[^\n`]*", text)):
        for flag in re.findall(r"--[a-z-]+", option):
            assert flag in fields, f"docs/cluster.md: {flag} is no option of boardgym train alphazero"
    assert "ray-cluster.yaml" in text and "boardgym bench selfplay" in text
