"""``boardgym bench solver``: times Pons's sets and checks every score on the way."""

from __future__ import annotations

import pytest

from boardgym.bench.solver_speed import main
from boardgym.types import BoardgymError


def test_bench_solver_prints_a_row_per_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sets", "End-Easy,Middle-Easy", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "| End-Easy | 5/5 |" in out and "| Middle-Easy | 5/5 |" in out
    assert "4.6 us" in out  # Pons's C++ figure beside ours


def test_bench_solver_refuses_an_unknown_set_and_missing_data(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BoardgymError, match="unknown --sets 'Late'; choose one of: End-Easy"):
        main(["--sets", "Late"])
    with pytest.raises(BoardgymError, match="no test set at"):
        main(["--sets", "End-Easy", "--data", str(tmp_path)])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budget", "nan"], "--budget 'nan' must be a finite number"),
        (["--budget", "0"], "--budget 0.0 must be above 0; e.g. --budget 120"),
        (["--limit", "-1"], "--limit -1 must be at least 1"),
        (["--limit", "0"], "--limit 0 must be at least 1"),
    ],
)
def test_bench_solver_refuses_bad_budgets_and_limits(argv: list[str], message: str) -> None:
    with pytest.raises(BoardgymError, match=message.replace(".", r"\.").replace("+", r"\+")):
        main(["--sets", "End-Easy", *argv])
