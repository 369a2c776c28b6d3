"""``boardgym play`` for the seed games: a person typing the first legal move shown each turn
plays a whole game against the random agent (render, move list and parse_action round trip)."""

from __future__ import annotations

import pytest

from boardgym import cli


@pytest.mark.parametrize(
    ("game", "params"),
    [("quixo", ["-p", "size=4"]), ("quarto", []), ("hex", ["-p", "size=5", "-p", "swap=true"]), ("rastros", [])],
)
@pytest.mark.parametrize("seat", ["0", "1"])
def test_play_a_whole_game_at_the_terminal(
    game: str, params: list[str], seat: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed: list[str] = []

    def type_first_legal_move(prompt: str) -> str:
        shown = capsys.readouterr().out
        moves = [line for line in shown.splitlines() if line.startswith("legal moves: ")][-1]
        typed.append(moves.removeprefix("legal moves: ").split(", ")[0])
        return typed[-1]

    monkeypatch.setattr("builtins.input", type_first_legal_move)
    assert cli.main(["play", game, *params, "--seat", seat, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert typed and any(result in out for result in ("you win", "you lose", "draw"))
