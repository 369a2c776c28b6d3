"""Tabular Q-learning: tiny end-to-end runs, resume, and perfect play on small games."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym import make_agent, make_game
from boardgym.agents.perfect import PerfectAgent
from boardgym.agents.tabular import TabularAgent
from boardgym.train import METHODS
from boardgym.train.qlearning import Config, main, train
from boardgym.types import BoardgymError

TINY = dict(episodes=2000, eval_every=1000, eval_games=10, checkpoint_every=1000, progress=False)


def scalar_tags(folder: Path) -> set[str]:
    events = EventAccumulator(str(folder))
    events.Reload()
    return set(events.Tags()["scalars"])


def never_loses(game, agent: TabularAgent) -> bool:
    """Every greedy choice of ``agent`` keeps the game-theoretic result, in every position
    reachable against any opponent, from both seats."""
    perfect = PerfectAgent(game)

    def walk(state, seat: int) -> bool:
        if game.is_terminal(state):
            return True
        if game.current_player(state) != seat:
            return all(walk(game.apply(state, a), seat) for a in game.legal_actions(state))
        values = perfect.action_values(state)
        best = max(values.values())
        choices = agent.table.greedy_actions(tuple(_flat(state)))
        if choices is None:
            return False
        sign = (best > 0) - (best < 0)  # win, draw or loss, however fast
        return all((values[a] > 0) - (values[a] < 0) == sign for a in choices) and all(
            walk(game.apply(state, a), seat) for a in choices
        )

    return walk(game.initial_state(), 0) and walk(game.initial_state(), 1)


def _flat(state):
    from boardgym.agents.tabular import encode_state

    return encode_state(state)


def test_method_is_registered() -> None:
    assert METHODS["qlearning"].target == "boardgym.train.qlearning:main"


def test_tiny_run_writes_checkpoint_tensorboard_and_loads_as_agent(tmp_path: Path) -> None:
    final = train(Config(run_name="tiny", root=str(tmp_path), **TINY))
    assert final == tmp_path / "tictactoe" / "qlearning" / "tiny" / "final.pt"
    payload = torch.load(final, weights_only=True)
    assert payload["step"] == 2000 and payload["method"] == "qlearning"
    tags = scalar_tags(final.parent)
    assert {"train/epsilon", "train/states", "train/win_rate", "eval/win_rate_vs_random"} <= tags
    assert {"eval/loss_rate_vs_perfect", "eval/draw_rate_vs_perfect"} <= tags
    game = make_game("tictactoe")
    agent = make_agent(f"qlearning:checkpoint={final}", game, seed=1)
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.apply(state, agent.act(game, state))


def test_resume_continues_to_the_requested_episodes(tmp_path: Path) -> None:
    train(Config(run_name="r", root=str(tmp_path), **{**TINY, "episodes": 1000}))
    with pytest.raises(BoardgymError, match="--resume"):
        train(Config(run_name="r", root=str(tmp_path), **TINY))
    final = train(Config(run_name="r", root=str(tmp_path), resume=True, **TINY))
    assert torch.load(final, weights_only=True)["step"] == 2000


def test_resume_without_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="no checkpoint"):
        train(Config(run_name="none", root=str(tmp_path), resume=True, **TINY))


def test_main_reads_the_command_line(tmp_path: Path, capsys) -> None:
    argv = ["--game", "nim", "--game-params", "heaps=2,3", "--episodes", "300", "--eval-games", "4"]
    assert main([*argv, "--root", str(tmp_path), "--run-name", "cli", "--no-progress"]) == 0
    assert (tmp_path / "nim" / "qlearning" / "cli" / "final.pt").exists()
    assert "qlearning:checkpoint=" in capsys.readouterr().out


def test_self_play_learns_perfect_nim(tmp_path: Path) -> None:
    final = train(
        Config(game="nim", game_params="heaps=2,3,4", run_name="n", root=str(tmp_path), **{**TINY, "episodes": 6000})
    )
    game = make_game("nim", heaps=(2, 3, 4))
    assert never_loses(game, TabularAgent(game, checkpoint=final))


def test_training_against_random_beats_random(tmp_path: Path) -> None:
    config = Config(opponent="random", run_name="vr", root=str(tmp_path), **{**TINY, "episodes": 5000})
    final = train(config)
    from boardgym.evaluate.match import play_games

    game = make_game("tictactoe")
    summary = play_games(game, f"qlearning:checkpoint={final}", "random", 100, seed=3)
    assert summary.wins >= 70 and summary.losses <= 15  # random vs random: about 44% and 44%


@pytest.mark.slow
def test_default_config_plays_tictactoe_perfectly(tmp_path: Path) -> None:
    final = train(Config(run_name="quickstart", root=str(tmp_path), progress=False))
    game = make_game("tictactoe")
    assert never_loses(game, TabularAgent(game, checkpoint=final))
