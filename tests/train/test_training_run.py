"""TrainingRun, the skeleton every method shares: the game from the config, the folder checks,
closing on errors, measurement tags, and the stamps on its checkpoints."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym import make_game
from boardgym.agents.random_agent import RandomAgent
from boardgym.checkpoints import load_checkpoint
from boardgym.config import option, options_from_argv
from boardgym.runs import LOCK_FILE, RunLock
from boardgym.train.training_run import RunConfig, TrainingRun, baseline_spec, game_from_config
from boardgym.types import BoardgymError

FORMAT = "boardgym.toy/1"


@dataclass(frozen=True)
class ToyConfig(RunConfig):
    """A method with one field of its own."""

    steps: int = option(3, "steps", minimum=1)


def toy(tmp_path: Path, **changes) -> ToyConfig:
    return ToyConfig(**{"root": str(tmp_path), "run_name": "toy", "progress": False, "eval_games": 2, **changes})


def test_the_shared_fields_come_first_on_the_command_line() -> None:
    argv = ["--game", "nim", "-p", "heaps=2,3", "--steps", "5", "--resume", "--run-name", "r"]
    config = options_from_argv(ToyConfig, argv, "toy")
    assert game_from_config(config).params()["heaps"] == (2, 3) and config.steps == 5 and config.resume
    assert config.root == "runs" and config.progress


def test_game_parameters_are_read_by_the_games_annotations() -> None:
    game = game_from_config(ToyConfig(game="nim", game_params="heaps=2,3 misere=true"))
    assert game.params()["heaps"] == (2, 3) and game.params()["misere"] is True
    assert game_from_config(ToyConfig(game="quixo", game_params="size=3;")).params()["size"] == 3


@pytest.mark.parametrize(
    ("game", "params", "expected"),
    [
        ("nim", "heaps=two", "heaps='two' must be positive integers"),
        ("quixo", "size=nan", "size='nan' must be an integer"),
        ("quixo", "size=", "size='' must be an integer"),
        ("nim", "colour=red", "unknown parameter"),
        ("nim", "heaps", "write KEY=VALUE"),
        ("chess", "", "unknown game 'chess'"),
    ],
)
def test_bad_game_options_are_one_sentence(tmp_path: Path, game: str, params: str, expected: str) -> None:
    with pytest.raises(BoardgymError, match=expected):
        TrainingRun(toy(tmp_path, game=game, game_params=params), "toy", format=FORMAT, total=3)
    assert not (tmp_path / game).exists()
    with pytest.raises(BoardgymError, match=expected):  # the command line: -p items, read the same way
        options_from_argv(ToyConfig, ["--game", game, "--root", str(tmp_path), "-p", params], "toy")
    assert not (tmp_path / game).exists()


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"resume": True, "run_name": None}, "--resume needs --run-name"),
        ({"run_name": "../escape"}, "--run-name '../escape' must be one folder name"),
        ({"run_name": "/abs"}, "must be one folder name"),
        ({"eval_every": -1}, "--eval-every -1"),
        ({"eval_games": 0}, "--eval-games 0 must be at least 1"),
        ({"root": " "}, "--root is empty"),
    ],
)
def test_bad_run_options_are_refused_before_any_file_is_written(tmp_path: Path, changes: dict, expected: str) -> None:
    with pytest.raises(BoardgymError, match=expected):
        TrainingRun(toy(tmp_path, **changes), "toy", format=FORMAT, total=3)
    assert list(tmp_path.iterdir()) == []


def test_checkpoints_are_stamped_and_resume_restores_the_step(tmp_path: Path) -> None:
    with TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3) as run:
        assert run.folder == tmp_path / "tictactoe" / "toy" / "toy"
        run.advance(2)
        run.save({"weights": torch.ones(2)})
        final = run.finish({"weights": torch.ones(2)})
    payload = load_checkpoint(final, format=FORMAT, game=make_game("tictactoe"), required=("weights", "config"))
    assert payload["method"] == "toy" and payload["step"] == 2
    with TrainingRun(toy(tmp_path, resume=True), "toy", format=FORMAT, total=3, resume_keys=("weights",)) as run:
        assert run.step == 2 and run.resumed is not None and run.resumed["weights"].tolist() == [1.0, 1.0]


def test_resume_of_another_method_or_game_is_refused(tmp_path: Path) -> None:
    with TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3) as run:
        run.save({})
    with pytest.raises(BoardgymError, match="not a boardgym.other/1 checkpoint"):
        TrainingRun(toy(tmp_path, resume=True), "toy", format="boardgym.other/1", total=3).open()
    with pytest.raises(BoardgymError, match="lacks weights"):
        TrainingRun(toy(tmp_path, resume=True), "toy", format=FORMAT, total=3, resume_keys=("weights",)).open()
    with RunLock(tmp_path / "tictactoe" / "toy" / "toy"):  # the refusals above let go of the lock
        pass


def test_a_fresh_run_refused_for_bad_input_leaves_the_name_free(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="bad opponent"), TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3):
        raise BoardgymError("bad opponent")
    folder = tmp_path / "tictactoe" / "toy" / "toy"
    assert [path.name for path in folder.iterdir()] == [LOCK_FILE]
    with TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3) as run:  # the same name works now
        run.save({})


def test_a_crash_keeps_the_files_and_releases_the_lock(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3) as run:
        run.save({})
        raise RuntimeError("out of memory")
    assert (run.folder / "checkpoint.pt").is_file() and (run.folder / "config.json").is_file()
    with RunLock(run.folder):
        pass
    with pytest.raises(BoardgymError, match="already holds a run"):
        TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3).open()


def test_measure_logs_the_eval_tags_against_random_and_the_baseline(tmp_path: Path) -> None:
    with TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3, unit="ep") as run:
        run.advance(1)
        scalars = run.measure(RandomAgent(run.game, seed=0))
    assert set(scalars) == {
        f"eval/{kind}_vs_{name}"
        for kind in ("win_rate", "draw_rate", "loss_rate", "score")
        for name in ("random", "perfect")
    } | {"eval/mistake_rate"}
    assert 0.3 < scalars["eval/mistake_rate"] < 0.9  # random play on tic-tac-toe's graded positions
    events = EventAccumulator(str(run.folder))
    events.Reload()
    assert "eval/win_rate_vs_perfect" in events.Tags()["scalars"]
    assert "eval/mistake_rate" in events.Tags()["scalars"]
    assert "hparams/config/text_summary" in events.Tags()["tensors"]


def test_baseline_is_perfect_where_search_is_cheap() -> None:
    assert baseline_spec(make_game("tictactoe")) == "perfect"
    assert baseline_spec(make_game("connect_four")) == "minimax:depth=2"
    assert baseline_spec(make_game("setcover")) is None


def test_due_and_a_declared_minimum() -> None:
    with pytest.raises(BoardgymError, match="--steps 0 must be at least 1"):
        ToyConfig(steps=0)
    run = TrainingRun(ToyConfig(progress=False), "toy", format=FORMAT, total=10)
    assert [step for step in range(7) if run.due(3, step)] == [3, 6]
    assert not any(run.due(0, step) for step in range(7))


def test_the_run_is_a_session_of_the_hparams_tab_with_its_last_scalars(tmp_path: Path, hparams_table) -> None:
    with TrainingRun(toy(tmp_path, steps=7), "toy", format=FORMAT, total=3, unit="ep") as run:
        run.games = 5
        run.advance(3)
        scalars = run.measure(RandomAgent(run.game, seed=0))
        run.finish({"weights": torch.zeros(1)})
    table = hparams_table(tmp_path)
    hparams, values, status = table.rows["tictactoe/toy/toy"]
    assert hparams["steps"] == 7 and hparams["game"] == "tictactoe" and hparams["method"] == "toy"
    assert hparams["run_name"] == "toy" and hparams["resume"] == "false" and hparams["eval_games"] == 2
    assert status == "STATUS_SUCCESS"
    assert table.metrics == set(scalars) | {"progress/games"} and "eval/win_rate_vs_perfect" in table.metrics
    assert values == pytest.approx(scalars | {"progress/games": 5})
    assert load_checkpoint(run.final_path, format=FORMAT, game=run.game)["games"] == 5


def test_a_failed_run_is_an_unfinished_session_until_its_resume_finishes(tmp_path: Path, hparams_table) -> None:
    with pytest.raises(RuntimeError), TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3) as run:
        run.games, run.step = 4, 2
        run.save({"weights": torch.zeros(1)})
        raise RuntimeError("the loop broke")
    assert hparams_table(tmp_path).rows["tictactoe/toy/toy"][2] == "STATUS_UNKNOWN"  # not finished
    with TrainingRun(toy(tmp_path, resume=True), "toy", format=FORMAT, total=3) as resumed:
        assert (resumed.step, resumed.games) == (2, 4)
        resumed.log({"train/x": 1.0})
        resumed.finish({"weights": torch.zeros(1)})
    _, values, status = hparams_table(tmp_path).rows["tictactoe/toy/toy"]
    assert values == {"train/x": 1.0, "progress/games": 4.0} and status == "STATUS_SUCCESS"


def test_the_bar_is_off_where_stderr_is_not_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with TrainingRun(toy(tmp_path, progress=True), "toy", format=FORMAT, total=3) as run:
        run.advance(3)
        assert run.bar is None  # progress left on, stderr a capture: no bar in the log
    assert capsys.readouterr().err == ""


def test_the_bar_grows_to_a_step_past_its_total(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library that rounds the budget up (SB3's whole rollouts) ends the bar at the step the
    log shows, not at the total asked for."""
    import io

    from tqdm import tqdm

    import boardgym.train.training_run as training_run

    monkeypatch.setattr(training_run, "progress_bar", lambda enabled=True, **kw: tqdm(file=io.StringIO(), **kw))
    with TrainingRun(toy(tmp_path, progress=True), "toy", format=FORMAT, total=3) as run:
        run.advance_to(2)
        assert (run.bar.n, run.bar.total) == (2, 3)
        run.advance_to(5)
        assert (run.bar.n, run.bar.total) == (5, 5) and run.step == 5


def test_ray_lost_under_a_run_says_how_to_resume_it(tmp_path: Path) -> None:
    from boardgym.cluster import RayLost

    with pytest.raises(RayLost) as caught, TrainingRun(toy(tmp_path), "toy", format=FORMAT, total=3) as run:
        raise RayLost("Ray stopped under the run: a Ray node died (NodeDiedError)")
    assert str(caught.value).endswith("(NodeDiedError); nothing was saved yet: start the same command again")
    with (
        pytest.raises(RayLost) as caught,
        TrainingRun(toy(tmp_path, run_name="saved"), "toy", format=FORMAT, total=3) as run,
    ):
        run.save({"weights": torch.zeros(1)})
        raise RayLost("Ray stopped under the run: a Ray node died (NodeDiedError)")
    assert str(caught.value).endswith(
        "(NodeDiedError); continue from the last checkpoint with the same command and --run-name saved --resume"
    )
