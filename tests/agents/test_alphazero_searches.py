"""The one table of search kinds: names, what each needs, where its self-play engine is, and
that nothing else in the package picks a search by its name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from boardgym import make_game
from boardgym.agents.alphazero.searches import SEARCHES, search_kind
from boardgym.train.alphazero.batched_selfplay import BatchedSelfPlay
from boardgym.train.alphazero.selfplay import SelfPlaySettings, engine_for
from boardgym.train.alphazero.tree_selfplay import TreeSelfPlay
from boardgym.types import BoardgymError

PACKAGE = Path(__file__).resolve().parents[2] / "boardgym"


def test_each_kind_names_its_engine() -> None:
    game = make_game("tictactoe")
    assert isinstance(engine_for(game, SelfPlaySettings(search="tree")), TreeSelfPlay)
    assert isinstance(engine_for(game, SelfPlaySettings(search="batched")), BatchedSelfPlay)
    assert [name for name, kind in SEARCHES.items() if kind.batched_rules] == ["batched"]


def test_unknown_kinds_and_a_gumbel_root_without_its_search_are_one_sentence() -> None:
    with pytest.raises(BoardgymError, match=r"--search 'beam' is not a search; use tree or batched"):
        search_kind("beam")
    with pytest.raises(BoardgymError, match=r"add search=batched, or drop gumbel=true"):
        search_kind("tree", "search=", gumbel=True, gumbel_option="gumbel=true")
    with pytest.raises(BoardgymError, match="--gumbel is a root of the batched search"):
        SelfPlaySettings(gumbel=True)


def test_the_search_kind_is_chosen_by_name_in_one_place() -> None:
    """No module but the table compares a search's name: the trainer, its self-play (here, in
    processes, on Ray), its config and the agent all go through ``searches``."""
    names = "|".join(SEARCHES)
    compared = re.compile(rf"""(==|!=|\bin)\s*\(?\s*["']({names})["']|["']({names})["']\s*(==|!=)""")
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "searches.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if compared.search(line) and "search" in line
    ]
    assert not found, found
