"""The AlphaZero training script: one tiny iteration end to end, checkpoints, resume, and
(slow) the default Tic-Tac-Toe config reaching perfect play."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.agents.alphazero.agent import AlphaZeroAgent, load_network
from boardgym.checkpoints import load_checkpoint
from boardgym.evaluate.grade_sets import read_connect_four_set
from boardgym.evaluate.match import play_games
from boardgym.games import GAMES
from boardgym.train import METHODS
from boardgym.train.alphazero import Config, main, scheduled_rates, train
from boardgym.train.alphazero.sources import make_selfplay
from boardgym.train.alphazero.workers import SelfPlayPool
from boardgym.types import BoardgymError

pytestmark = pytest.mark.usefixtures("one_torch_thread")


TINY = dict(
    iterations=1,
    games_per_iteration=4,
    parallel_games=4,
    simulations=4,
    blocks=1,
    channels=8,
    value_hidden=8,
    buffer_size=500,
    batch_size=16,
    train_steps=2,
    eval_every=1,
    eval_games=2,
    eval_simulations=2,
    eval_opponents="random;mcts:simulations=4",
    device="cpu",
    workers=1,
)


def tiny_config(tmp_path: Path, **changes) -> Config:
    return Config(**{**TINY, "run_name": "run", **changes})


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # runs/ goes under tmp_path
    return tmp_path


def test_alphazero_is_a_registered_method() -> None:
    assert METHODS["alphazero"].target == "boardgym.train.alphazero:main"


def test_one_iteration_end_to_end_writes_a_playable_checkpoint(in_tmp: Path) -> None:
    path = train(tiny_config(in_tmp, run_name="one"))
    folder = path.parent
    assert path.resolve() == in_tmp / "runs/tictactoe/alphazero/one/final.pt"
    assert (in_tmp / "runs/tictactoe/alphazero/one/checkpoint.pt").is_file()
    assert [p.name for p in folder.glob("replay*.pt")] == ["replay-1.pt"]
    assert json.loads((folder / "config.json").read_text())["simulations"] == 4
    assert list(folder.glob("events.out.tfevents.*"))
    game = make_game("tictactoe")
    agent = make_agent(f"alphazero:checkpoint={path},simulations=8", game, seed=0)
    summary = play_games(game, agent, "random", 2, seed=0)
    assert summary.games == 2


def test_tensorboard_gets_losses_speeds_and_evaluation(in_tmp: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    path = train(tiny_config(in_tmp, run_name="tb"))
    events = EventAccumulator(str(path.parent))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for tag in (
        "loss/policy",
        "loss/value",
        "loss/policy_entropy",
        "perf/selfplay_games_per_s",
        "perf/selfplay_positions_per_s",
        "perf/network_batch",
        "eval/win_rate_vs_random",
        "eval/win_rate_vs_mcts",
        "eval/win_rate_vs_previous",
        "eval/elo",
    ):
        assert tag in tags, tag


def test_selfplay_rate_counts_the_positions_searched_as_the_bench_does(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``perf/selfplay_positions_per_s`` is positions searched over the call's seconds, as
    ``boardgym bench selfplay`` counts them, not the positions of the games that ended."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from boardgym.train.alphazero.sources import LocalSelfPlay

    played = []
    play = LocalSelfPlay.play

    def recorded(self: LocalSelfPlay, *args: Any, **kwargs: Any) -> Any:
        played.append(play(self, *args, **kwargs))
        return played[-1]

    monkeypatch.setattr(LocalSelfPlay, "play", recorded)
    config = tiny_config(in_tmp, run_name="rate", search="batched", iterations=3, parallel_games=3)
    path = train(dataclasses.replace(config, games_per_iteration=2))
    events = EventAccumulator(str(path.parent))
    events.Reload()
    logged = [event.value for event in events.Scalars("perf/selfplay_positions_per_s")]
    assert len(logged) == len(played) == 3
    for value, result in zip(logged, played, strict=True):
        assert result.searched and value == pytest.approx(result.searched / result.seconds, rel=1e-6)
    assert any(result.searched != result.positions_count for result in played)  # games kept in flight


def test_checkpoint_round_trip_with_weights_only(in_tmp: Path) -> None:
    path = train(tiny_config(in_tmp, run_name="ckpt"))
    payload = torch.load(path, weights_only=True)  # no arbitrary unpickling needed
    assert json.loads(payload["game_signature"])["game"] == "tictactoe" and payload["step"] == 1
    game = make_game("tictactoe")
    network = load_network(path, game)
    for name, tensor in network.state_dict().items():
        assert torch.equal(tensor, payload["state_dict"][name])
    assert torch.load(path.parent / "replay-1.pt", weights_only=True)["value"].ndim == 1


def test_resume_continues_from_the_saved_iteration(in_tmp: Path) -> None:
    config = tiny_config(in_tmp, run_name="resume", eval_every=0)
    train(config)
    first = load_checkpoint(in_tmp / "runs/tictactoe/alphazero/resume/checkpoint.pt")
    path = train(dataclasses.replace(config, iterations=2, resume=True))
    second = load_checkpoint(path)
    assert second["step"] == 2
    assert any(not torch.equal(first["state_dict"][k], v) for k, v in second["state_dict"].items())


def test_resume_takes_the_learning_rate_of_its_command_line(in_tmp: Path) -> None:
    """Resuming with a lower --lr (the usual last passes) trains at that rate, not the saved one."""
    config = tiny_config(in_tmp, run_name="decay", eval_every=0, lr=1e-3, weight_decay=1e-4)
    train(config)
    train(dataclasses.replace(config, iterations=2, resume=True, lr=2e-4, weight_decay=0.0))
    optimizer = load_checkpoint(in_tmp / "runs/tictactoe/alphazero/decay/checkpoint.pt")["optimizer"]
    assert [(g["lr"], g["weight_decay"]) for g in optimizer["param_groups"]] == [(2e-4, 0.0)]
    assert optimizer["state"]  # Adam's moments came back, not a fresh optimizer


def test_cosine_schedule_decays_the_rate_step_by_step_over_the_commands_iterations(in_tmp: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = tiny_config(in_tmp, run_name="cosine", eval_every=0, iterations=3, train_steps=4, lr=1e-3)
    assert np.array_equal(scheduled_rates(config, done=1, total=3), np.full(4, 1e-3))  # constant by default
    cosine = dataclasses.replace(config, lr_schedule="cosine")
    rates = np.concatenate([scheduled_rates(cosine, done=i, total=3) for i in range(3)])
    assert rates[0] == 1e-3 and np.all(np.diff(rates) < 0) and 0 < rates[-1] < 1e-3 * 0.02
    np.testing.assert_allclose(rates[6], 5e-4)  # half way down at the middle step
    train(cosine)
    events = EventAccumulator(str(in_tmp / "runs/tictactoe/alphazero/cosine"))
    events.Reload()
    np.testing.assert_allclose([e.value for e in events.Scalars("train/lr")], rates[3::4], rtol=1e-6)
    optimizer = load_checkpoint(in_tmp / "runs/tictactoe/alphazero/cosine/checkpoint.pt")["optimizer"]
    assert optimizer["param_groups"][0]["lr"] == pytest.approx(rates[-1])
    # --resume with more iterations decays again from --lr over the iterations still to run
    train(dataclasses.replace(cosine, iterations=5, resume=True, lr=4e-4))
    # a fresh reader: the resumed run's events file may sort before the first one's when both
    # start within the same second, and a reader only moves forward through the files
    events = EventAccumulator(str(in_tmp / "runs/tictactoe/alphazero/cosine"))
    events.Reload()
    assert [round(e.value / 4e-4, 6) for e in events.Scalars("train/lr")][3:] == [
        round(0.5 * (1 + np.cos(np.pi * step / 8)), 6) for step in (3, 7)
    ]
    with pytest.raises(BoardgymError, match="unknown --lr-schedule 'linear'; choose one of: constant, cosine"):
        train(dataclasses.replace(config, run_name="linear", lr_schedule="linear"))
    assert not (in_tmp / "runs/tictactoe/alphazero/linear").exists()


def test_resume_with_another_network_size_is_refused(in_tmp: Path) -> None:
    config = tiny_config(in_tmp, run_name="mismatch", eval_every=0)
    train(config)
    with pytest.raises(BoardgymError, match="resume"):
        train(dataclasses.replace(config, iterations=2, resume=True, channels=16))


def test_command_line_runs_and_reports_the_checkpoint(in_tmp: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["--run-name", "cli"]
    for key, value in TINY.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    assert main(argv) == 0
    assert "runs/tictactoe/alphazero/cli/final.pt" in capsys.readouterr().out


def test_no_word_on_evaluation_opponents_when_evaluation_never_runs(
    in_tmp: Path, capsys: pytest.CaptureFixture
) -> None:
    train(tiny_config(in_tmp, run_name="measured", eval_opponents="nosuch;random"))
    assert "skipping evaluation opponent 'nosuch'" in capsys.readouterr().err
    train(tiny_config(in_tmp, run_name="unmeasured", eval_opponents="nosuch;random", eval_every=0))
    assert "skipping" not in capsys.readouterr().err  # --eval-every 0: no measurement, nothing to skip


def test_bad_config_values_are_explained(in_tmp: Path) -> None:
    with pytest.raises(BoardgymError, match="--simulations 0"):
        train(tiny_config(in_tmp, simulations=0))
    with pytest.raises(BoardgymError, match="run-name"):
        train(tiny_config(in_tmp, run_name="", resume=True))
    with pytest.raises(BoardgymError, match="--random-start-moves -1 must be at least 0"):
        train(tiny_config(in_tmp, random_start_moves=-1))
    with pytest.raises(BoardgymError, match="--temperature-moves -2 must be at least 0"):
        train(tiny_config(in_tmp, temperature_moves=-2))
    with pytest.raises(BoardgymError, match="random starts of up to 1000000000 moves.*smaller --random-start-moves"):
        train(tiny_config(in_tmp, random_start_moves=10**9, run_name="long_starts"))
    assert not (in_tmp / "runs" / "tictactoe" / "alphazero" / "long_starts").exists()  # refused before the run folder
    for lr in (math.nan, -1.0, math.inf):
        with pytest.raises(BoardgymError, match=rf"--lr {lr} must be (a finite number|at least 0; 0: no learning)"):
            train(tiny_config(in_tmp, lr=lr, run_name="bad_lr"))
    for decay in (math.nan, -0.1, math.inf):
        with pytest.raises(BoardgymError, match=f"--weight-decay {decay} must be (a finite number|at least 0)"):
            train(tiny_config(in_tmp, weight_decay=decay, run_name="bad_lr"))
    assert not (in_tmp / "runs" / "tictactoe" / "alphazero" / "bad_lr").exists()
    with pytest.raises(BoardgymError, match="unknown --worker-device 'gpu'; choose one of: cpu, auto, cuda"):
        train(tiny_config(in_tmp, worker_device="gpu"))
    if not torch.cuda.is_available():
        with pytest.raises(BoardgymError, match="--worker-device 'cuda'"):
            train(tiny_config(in_tmp, worker_device="cuda", workers=2, run_name="no_cuda"))
        assert not (in_tmp / "runs" / "tictactoe" / "alphazero" / "no_cuda").exists()


@pytest.mark.slow
def test_default_config_plays_tictactoe_perfectly(in_tmp: Path) -> None:
    """Acceptance: no loss against `perfect` in 200 games, 100 from each seat."""
    path = train(Config(run_name="perfect", device="cpu", eval_every=0))
    game = make_game("tictactoe")
    agent = AlphaZeroAgent(game, checkpoint=path, seed=0)
    summary = play_games(game, agent, "perfect", 200, seed=1)
    assert summary.losses == 0, str(summary)


def test_selfplay_in_worker_processes_feeds_the_same_loop(in_tmp: Path) -> None:
    path = train(tiny_config(in_tmp, run_name="workers", workers=2, games_per_iteration=3, eval_every=0))
    payload = load_checkpoint(path)
    assert payload["step"] == 1
    assert torch.load(path.parent / "replay-1.pt", weights_only=True)["value"].shape[0] >= 3 * 5  # >= 5 moves a game


def test_worker_processes_run_the_network_on_the_worker_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers' device is --worker-device (cpu by default), not the learner's --device."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # as on a GPU machine; nothing runs on it here
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)  # "cuda" resolves to the current GPU's index
    game = make_game("tictactoe")
    pools = []
    for worker_device, expected in (("cpu", ("cpu", False)), ("auto", ("cuda:0", True)), ("cuda", ("cuda:0", True))):
        config = Config(device="cuda", worker_device=worker_device, workers=2, progress=False)
        pool = make_selfplay(config, game, torch.device("cpu"), 2, amp=True)
        pools.append(pool)
        assert isinstance(pool, SelfPlayPool) and pool._setup[2:] == expected, worker_device
    assert Config().worker_device == "cpu"
    for pool in pools:
        pool.close()


def test_time_limit_stops_early_and_still_evaluates_the_last_iteration(in_tmp: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    path = train(tiny_config(in_tmp, run_name="timed", iterations=50, max_minutes=1e-9, eval_every=10))
    assert load_checkpoint(path)["step"] == 2  # the first iteration times the rest
    events = EventAccumulator(str(path.parent))
    events.Reload()
    assert [e.step for e in events.Scalars("eval/win_rate_vs_random")] == [2]


def test_one_player_puzzles_are_refused(in_tmp: Path) -> None:
    one_player = next((n for n in GAMES if make_game(n).num_players == 1), None)
    if one_player is None:
        pytest.skip("no one-player game registered")
    with pytest.raises(BoardgymError, match="two-player games"):
        train(tiny_config(in_tmp, game=one_player))


def test_resume_checks_that_replay_and_checkpoint_pair(in_tmp: Path) -> None:
    config = tiny_config(in_tmp, run_name="pair", eval_every=0)
    train(config)
    folder = in_tmp / "runs/tictactoe/alphazero/pair"
    replay = torch.load(folder / "replay-1.pt", weights_only=True)
    checkpoint = load_checkpoint(folder / "checkpoint.pt")
    assert replay["step"] == checkpoint["replay_step"] == 1 and checkpoint["replay_file"] == "replay-1.pt"
    replay["step"] = 5  # a file changed behind the run's back
    torch.save(replay, folder / "replay-1.pt")
    with pytest.raises(BoardgymError, match="of iteration 5, but checkpoint.pt pairs with iteration 1"):
        train(dataclasses.replace(config, iterations=2, resume=True))
    (folder / "replay-1.pt").unlink()
    with pytest.raises(BoardgymError, match="pairs with replay-1.pt, which is not in the run folder"):
        train(dataclasses.replace(config, iterations=2, resume=True))


def test_a_run_stopped_between_the_replay_and_the_checkpoint_resumes(in_tmp: Path, monkeypatch) -> None:
    """Killed after writing iteration 2's replay file and before checkpoint.pt: the folder still
    holds iteration 1's pair, which --resume reads; the stray file goes at the next save."""
    from boardgym.train.training_run import TrainingRun

    config = tiny_config(in_tmp, run_name="killed", eval_every=0)
    train(config)
    folder = in_tmp / "runs/tictactoe/alphazero/killed"
    save = TrainingRun.save

    def killed(self, payload, path=None):
        if payload.get("replay_step") == 2:
            raise KeyboardInterrupt  # the process dies here
        return save(self, payload, path)

    monkeypatch.setattr(TrainingRun, "save", killed)
    with pytest.raises(KeyboardInterrupt):
        train(dataclasses.replace(config, iterations=2, resume=True))
    assert {p.name for p in folder.glob("replay*.pt")} == {"replay-1.pt", "replay-2.pt"}
    assert load_checkpoint(folder / "checkpoint.pt")["replay_file"] == "replay-1.pt"
    monkeypatch.setattr(TrainingRun, "save", save)
    path = train(dataclasses.replace(config, iterations=2, resume=True))
    assert load_checkpoint(path)["step"] == 2
    assert [p.name for p in folder.glob("replay*.pt")] == ["replay-2.pt"]
    assert load_checkpoint(folder / "checkpoint.pt")["replay_file"] == "replay-2.pt"


def test_a_run_of_the_single_replay_file_still_resumes(in_tmp: Path) -> None:
    config = tiny_config(in_tmp, run_name="old", eval_every=0)
    train(config)
    folder = in_tmp / "runs/tictactoe/alphazero/old"
    payload = load_checkpoint(folder / "checkpoint.pt")
    del payload["replay_file"]  # as written before the pairs were named
    torch.save(payload, folder / "checkpoint.pt")
    (folder / "replay-1.pt").rename(folder / "replay.pt")
    path = train(dataclasses.replace(config, iterations=2, resume=True))
    assert load_checkpoint(path)["step"] == 2
    assert [p.name for p in folder.glob("replay*.pt")] == ["replay-2.pt"]


def test_an_existing_run_is_not_overwritten_and_root_is_honoured(in_tmp: Path) -> None:
    config = tiny_config(in_tmp, run_name="kept", eval_every=0, root=str(in_tmp / "elsewhere"), progress=False)
    path = train(config)
    assert path == in_tmp / "elsewhere/tictactoe/alphazero/kept/final.pt"
    with pytest.raises(BoardgymError, match="already holds a run; pass --resume"):
        train(config)


def test_workers_default_to_every_core(monkeypatch: pytest.MonkeyPatch) -> None:
    from boardgym.train.alphazero import resolve_workers

    assert Config().workers == "auto"
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert resolve_workers("auto") == 2
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert resolve_workers("auto") == 8
    assert resolve_workers("3") == 3 and resolve_workers(1) == 1
    for bad in ("0", "two", "1.5", -1):
        with pytest.raises(BoardgymError, match="must be auto or a whole number"):
            resolve_workers(bad)


def test_config_json_records_the_workers_used(in_tmp: Path) -> None:
    path = train(tiny_config(in_tmp, run_name="auto", workers="auto", games_per_iteration=2, eval_every=0))
    written = json.loads((path.parent / "config.json").read_text())
    assert written["workers"] == "auto" and written["workers_used"] >= 1


def test_init_starts_from_another_runs_weights(in_tmp: Path) -> None:
    first = train(tiny_config(in_tmp, run_name="first", eval_every=0))
    # No learning (lr 0): the parameters end as they started, which is the first run's network.
    second = train(tiny_config(in_tmp, run_name="second", eval_every=0, init=str(first), lr=0.0))
    before, after = load_checkpoint(first)["state_dict"], load_checkpoint(second)["state_dict"]
    network = load_network(second, make_game("tictactoe"))
    for name, _ in network.named_parameters():
        assert torch.equal(before[name], after[name]), name
    assert json.loads((second.parent / "config.json").read_text())["init"] == str(first)


def test_init_names_what_does_not_match(in_tmp: Path) -> None:
    with pytest.raises(BoardgymError, match="--blocks, --channels and --value-hidden"):
        train(tiny_config(in_tmp, run_name="pretrained-mismatch", init="pretrained"))
    with pytest.raises(BoardgymError, match=r"--init is empty; give a value \(start from these weights"):
        train(tiny_config(in_tmp, run_name="empty", init=" "))
    with pytest.raises(BoardgymError, match="missing.pt"):
        train(tiny_config(in_tmp, run_name="missing", init=str(in_tmp / "missing.pt")))
    with pytest.raises(BoardgymError, match="no pretrained alphazero network ships for nim"):
        train(tiny_config(in_tmp, run_name="nim", game="nim", init="pretrained"))
    assert not (in_tmp / "runs/tictactoe/alphazero/pretrained-mismatch").exists()  # refused before it opened


def test_replay_starts_the_buffer_and_zero_games_only_trains(in_tmp: Path) -> None:
    first = train(tiny_config(in_tmp, run_name="source", eval_every=0))
    source = torch.load(first.parent / "replay-1.pt", weights_only=True)
    path = train(
        tiny_config(
            in_tmp, run_name="trained", eval_every=0, games_per_iteration=0, replay=str(first.parent / "replay-1.pt")
        )
    )
    copied = torch.load(path.parent / "replay-1.pt", weights_only=True)
    assert torch.equal(copied["value"], source["value"]) and torch.equal(copied["planes"], source["planes"])
    assert any(
        not torch.equal(v, load_checkpoint(first)["state_dict"][k])
        for k, v in load_checkpoint(path)["state_dict"].items()
    )
    resumed = train(
        tiny_config(in_tmp, run_name="trained", eval_every=0, games_per_iteration=0, iterations=2, resume=True)
    )
    assert load_checkpoint(resumed)["step"] == 2  # the run's own buffer: no --replay needed


def test_replay_and_solver_options_are_checked_before_the_run_folder(in_tmp: Path) -> None:
    runs = in_tmp / "runs" / "tictactoe" / "alphazero"
    with pytest.raises(BoardgymError, match="--games-per-iteration 0 plays no self-play games.*--replay FILE"):
        train(tiny_config(in_tmp, run_name="none", games_per_iteration=0))
    with pytest.raises(BoardgymError, match="--replay 'nowhere.pt' is not a file"):
        train(tiny_config(in_tmp, run_name="none", replay="nowhere.pt"))
    with pytest.raises(BoardgymError, match="--games-per-iteration -1 must be at least 0"):
        train(tiny_config(in_tmp, run_name="none", games_per_iteration=-1))
    with pytest.raises(BoardgymError, match="--solver-targets needs an exact solver.*not tictactoe"):
        train(tiny_config(in_tmp, run_name="none", solver_targets=4))
    with pytest.raises(BoardgymError, match="--solver-limit 0.0 must be above 0"):
        train(tiny_config(in_tmp, run_name="none", solver_targets=4, solver_limit=0.0))
    assert not (runs / "none").exists()
    other = train(tiny_config(in_tmp, run_name="c4", game="connect_four", eval_every=0))
    with pytest.raises(BoardgymError, match="connect_four"):
        train(tiny_config(in_tmp, run_name="none", replay=str(other.parent / "replay-1.pt")))
    assert not (runs / "none").exists()


def test_solved_positions_fill_the_buffer_before_the_first_iteration(in_tmp: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from boardgym.games.connect_four import state_from_planes
    from boardgym.train.alphazero.solved import move_values

    config = tiny_config(
        in_tmp, run_name="varied", game="connect_four", eval_every=0, games_per_iteration=0, solved_positions=12
    )
    path = train(dataclasses.replace(config, solved_plies="30-34"))
    replay = torch.load(path.parent / "replay-1.pt", weights_only=True)
    assert len(replay["value"]) == 24  # each position and its mirror image
    shipped = {p.state for p in read_connect_four_set()}
    for planes, policy, value in zip(
        replay["planes"].float().numpy(), replay["policy"].numpy(), replay["value"], strict=True
    ):
        state = state_from_planes(planes)
        scores = move_values(state, limit=20.0)
        assert 30 <= state[1].bit_count() <= 34 and state not in shipped
        assert value == max(scores.values())
        best = [column for column, v in scores.items() if v == value]
        np.testing.assert_allclose(policy[best], 1 / len(best))
    events = EventAccumulator(str(path.parent))
    events.Reload()
    assert events.Scalars("solver/varied_solved")[0].value == 12
    assert "solver/varied_result_agreed" not in events.Tags()["scalars"]  # no game result to agree with
    runs = in_tmp / "runs" / "tictactoe" / "alphazero"
    for plies in ("abc", "40-20", "0-5", "30-42", "30"):
        with pytest.raises(BoardgymError, match=f"--solved-plies '{plies}' is not FIRST-LAST"):
            train(tiny_config(in_tmp, run_name="none", solved_positions=5, solved_plies=plies))
    with pytest.raises(BoardgymError, match="--solved-positions needs an exact solver.*not tictactoe"):
        train(tiny_config(in_tmp, run_name="none", solved_positions=5))
    with pytest.raises(BoardgymError, match="--solved-positions -1 must be at least 0"):
        train(tiny_config(in_tmp, run_name="none", solved_positions=-1))
    with pytest.raises(BoardgymError, match="--solved-plies '18-30' does nothing without --solved-positions N"):
        train(tiny_config(in_tmp, run_name="none", game="connect_four", solved_plies="18-30"))
    assert not runs.exists() and not (in_tmp / "runs" / "connect_four" / "alphazero" / "none").exists()


def test_solver_targets_replace_connect_four_selfplay_targets(in_tmp: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from boardgym.games.connect_four import state_from_planes
    from boardgym.train.alphazero.solved import move_values

    path = train(
        tiny_config(
            in_tmp,
            run_name="exact",
            game="connect_four",
            eval_every=0,
            random_start_moves=24,
            solver_targets=18,
            solver_limit=20.0,
        )
    )
    replay = torch.load(path.parent / "replay-1.pt", weights_only=True)
    checked = 0
    for planes, value in zip(replay["planes"].float().numpy(), replay["value"].numpy(), strict=True):
        state = state_from_planes(planes)
        if state[1].bit_count() >= 18:
            assert value == max(move_values(state, limit=20.0).values())
            checked += 1
    assert checked
    events = EventAccumulator(str(path.parent))
    events.Reload()
    assert events.Scalars("solver/selfplay_solved")[0].value == checked // 2  # mirrors are rows, not positions
