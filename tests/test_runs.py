"""Run folders: names that stay inside the root, atomic writes under the umask, the run-folder
lock (refused while held, free again when the holder dies), and the one checkpoint loader
with one sentence for every way a checkpoint can be wrong, old formats included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import boardgym
from boardgym import make_game
from boardgym.checkpoints import game_signature, load_checkpoint, retrain_command, save_checkpoint
from boardgym.runs import RunFolder, RunLock, atomic_write_bytes, atomic_write_text, check_run_name, current_umask
from boardgym.types import BoardgymError

REPO = Path(boardgym.__file__).resolve().parents[1]
FORMAT = "boardgym.test/2"


def one_sentence(error: pytest.ExceptionInfo[BoardgymError]) -> str:
    message = str(error.value)
    assert "\n" not in message and ". " not in message and "Traceback" not in message, message
    return message


# -- run folders --------------------------------------------------------------------------------
def test_run_folder_layout(tmp_path: Path) -> None:
    folder = RunFolder.named(tmp_path, "nim", "qlearning", "first")
    assert folder.path == tmp_path / "nim" / "qlearning" / "first" and not folder.path.exists()
    with folder.open():
        assert folder.path.is_dir() and folder.fresh
    default = RunFolder.named(tmp_path, "nim", "qlearning", None, seed=7)
    assert default.name.startswith("s7-") and not default.path.exists()
    default.path.mkdir(parents=True)  # a run of the same second: the next default name is another
    assert RunFolder.named(tmp_path, "nim", "qlearning", None, seed=7).name == default.name + "-2"
    assert RunFolder.named(tmp_path, "nim", "ladder", None, seed=7, default_name="s7").name == "s7"


def test_a_run_folder_is_never_overwritten_and_resumes_only_what_it_holds(tmp_path: Path) -> None:
    folder = RunFolder.named(tmp_path, "nim", "qlearning", "r")
    with folder.open(holds="checkpoint.pt"):
        (folder.path / "checkpoint.pt").write_text("x")
    with pytest.raises(BoardgymError, match="already holds a run; pass --resume to continue it, or another --run-name"):
        RunFolder(folder.path).open(holds="checkpoint.pt")
    with pytest.raises(BoardgymError, match="already holds a grade; pass another --run-name"):
        RunFolder(folder.path).open(what="grade", resumable=False)
    with RunFolder(folder.path).open(resume=True, holds="checkpoint.pt") as again:
        assert not again.fresh
        with pytest.raises(BoardgymError, match="in use by process"):
            RunFolder(folder.path).open(resume=True)
    with pytest.raises(BoardgymError, match="--resume: there is no checkpoint.pt in"):
        RunFolder.named(tmp_path, "nim", "qlearning", "empty").open(resume=True, holds="checkpoint.pt")
    newest = RunFolder.named(tmp_path, "nim", "qlearning", None, resume=True, holds="checkpoint.pt")
    assert newest.path == folder.path
    with pytest.raises(BoardgymError, match="nothing under .* to resume"):
        RunFolder.named(tmp_path, "nim", "ppo", None, resume=True, holds="checkpoint.pt")


def test_a_fresh_folder_refused_for_bad_input_is_emptied_unless_kept(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run").open()
    (folder.path / "config.json").write_text("{}")
    folder.close(BoardgymError("bad input"))
    assert [path.name for path in folder.path.iterdir()] == [".lock"]
    kept = RunFolder(tmp_path / "kept").open()
    (kept.path / "checkpoint.pt").write_text("x")
    kept.keep()
    kept.close(BoardgymError("bad input later"))
    assert (kept.path / "checkpoint.pt").is_file()


@pytest.mark.parametrize("name", ["../x", "..", ".", "/tmp/elsewhere", "a/b", "a\\b", "x\0y", "", "   "])
def test_run_names_that_leave_the_root_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(BoardgymError, match="--run-name") as error:
        RunFolder.named(tmp_path, "nim", "qlearning", name or " ")
    one_sentence(error)
    with pytest.raises(BoardgymError):
        check_run_name(name)
    assert not (tmp_path.parent / "x").exists()


def test_plain_run_names_pass() -> None:
    for name in ("quickstart", "c4-vs-random", "s0-20240101-120000", "run.2", "ü"):
        assert check_run_name(name) == name


# -- atomic writes ------------------------------------------------------------------------------
def test_atomic_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "config.json"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_writes_respect_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        assert current_umask() == umask
        atomic_write_bytes(tmp_path / "a.bin", b"x")
        save_checkpoint(tmp_path / "c.pt", {"x": 1}, format=FORMAT, game=None)
    finally:
        os.umask(old)
    assert (tmp_path / "a.bin").stat().st_mode & 0o777 == mode
    assert (tmp_path / "c.pt").stat().st_mode & 0o777 == mode


# -- the lock -----------------------------------------------------------------------------------
def test_a_held_lock_refuses_a_second_holder_until_released(tmp_path: Path) -> None:
    first = RunLock(tmp_path).acquire()
    with pytest.raises(BoardgymError, match=f"in use by process {os.getpid()}.*--run-name") as error:
        RunLock(tmp_path).acquire()
    one_sentence(error)
    first.release()
    with RunLock(tmp_path) as again:
        assert again.held
    assert not again.held


HOLDER = """
import sys, time
from boardgym.runs import RunLock
lock = RunLock(sys.argv[1]).acquire()  # held while this process lives
print("locked", flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(os.name != "posix", reason="kill -9 and flock are POSIX")
def test_the_lock_of_a_killed_holder_is_free_again(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(BoardgymError, match=f"in use by process {holder.pid}"):
            RunLock(tmp_path).acquire()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        if holder.stdout is not None:
            holder.stdout.close()
    with RunLock(tmp_path) as lock:  # no stale lock left behind
        assert lock.held


# -- checkpoints --------------------------------------------------------------------------------
def test_checkpoint_round_trip_is_stamped_with_format_and_game(tmp_path: Path) -> None:
    game = make_game("nim", heaps=(2, 3))
    path = save_checkpoint(tmp_path / "final.pt", {"weights": torch.arange(3)}, format=FORMAT, game=game)
    payload = load_checkpoint(path, format=FORMAT, game=game, required=("weights",))
    assert payload["weights"].tolist() == [0, 1, 2]
    assert payload["format"] == FORMAT and payload["game_signature"] == game_signature(game)
    assert json.loads(game_signature(game)) == {"game": "nim", "params": json.loads(json.dumps(game.params()))}


class Anything:
    """An arbitrary class: a checkpoint holding one needs unpickling, which is refused."""


def _corrupt_cases(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = save_checkpoint(tmp_path / "good.pt", {"weights": torch.ones(200)}, format=FORMAT, game=None)
    (tmp_path / "empty.pt").write_bytes(b"")
    (tmp_path / "garbage.pt").write_bytes(b"not a checkpoint at all")
    (tmp_path / "truncated.pt").write_bytes(good.read_bytes()[:300])
    torch.save([1, 2, 3], tmp_path / "list.pt")
    (tmp_path / "folder.pt").mkdir()
    torch.save({"object": Anything()}, tmp_path / "pickled.pt")
    return {
        "missing": (tmp_path / "nope.pt", "does not exist"),
        "directory": (tmp_path / "folder.pt", "is a folder"),
        "empty": (tmp_path / "empty.pt", "is empty"),
        "dev-null": (Path(os.devnull), "not a regular file|is empty"),
        "garbage": (tmp_path / "garbage.pt", "cannot be read.*corrupt"),
        "truncated": (tmp_path / "truncated.pt", "cannot be read.*damaged or incomplete"),
        "not a dict": (tmp_path / "list.pt", "holds no dict"),
        "pickled object": (tmp_path / "pickled.pt", "cannot be read"),
    }


def test_every_unreadable_checkpoint_is_one_sentence(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    for case, (path, expected) in _corrupt_cases(tmp_path).items():
        with pytest.raises(BoardgymError, match=expected) as error:
            load_checkpoint(path, format=FORMAT, game=game, method="qlearning")
        message = one_sentence(error)
        assert str(path) in message, case


class _Trap:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("this pickle ran code",))


def test_a_pickle_of_objects_is_refused_without_torch_warning_first(tmp_path: Path) -> None:
    """A foreign pickle (protocol 4, an object that would run code) is one sentence on its own:
    torch's warning about the protocol is not printed before it."""
    import pickle
    import warnings

    path = tmp_path / "trap.pt"
    path.write_bytes(pickle.dumps({"weights": _Trap()}, protocol=4))
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with pytest.raises(BoardgymError, match="cannot be read") as error:
            load_checkpoint(path, format=FORMAT, game=make_game("tictactoe"), method="ppo")
    one_sentence(error)
    assert [str(warning.message) for warning in shown] == []


def test_wrong_format_game_or_keys_are_one_sentence_with_the_way_to_retrain(tmp_path: Path) -> None:
    game = make_game("nim", heaps=(2, 3))
    path = save_checkpoint(tmp_path / "c.pt", {"weights": torch.ones(2)}, format=FORMAT, game=game)
    with pytest.raises(BoardgymError, match=r"not a boardgym.other/1 checkpoint.*boardgym train ppo") as error:
        load_checkpoint(path, format="boardgym.other/1", game=game, method="ppo")
    one_sentence(error)
    with pytest.raises(BoardgymError, match="format boardgym.test/2, which this version.*boardgym.test/3") as error:
        load_checkpoint(path, format="boardgym.test/3", game=game, method="es")
    one_sentence(error)
    other = make_game("nim", heaps=(2, 4))
    with pytest.raises(BoardgymError, match=r"trained on nim heaps=2,3.*not on nim heaps=2,4.*-p heaps=2,4") as error:
        load_checkpoint(path, format=FORMAT, game=other, method="es")
    one_sentence(error)
    with pytest.raises(BoardgymError, match=r"lacks policy, optimizer.*boardgym train es --game nim") as error:
        load_checkpoint(path, format=FORMAT, game=game, required=("weights", "policy", "optimizer"), method="es")
    one_sentence(error)
    unstamped = save_checkpoint(tmp_path / "u.pt", {"weights": torch.ones(2)}, format=FORMAT, game=None)
    with pytest.raises(BoardgymError, match="does not say which game") as error:
        load_checkpoint(unstamped, format=FORMAT, game=game)
    one_sentence(error)


def test_old_alphazero_checkpoints_still_load(tmp_path: Path) -> None:
    """Before the formats were unified AlphaZero wrote its own tag and ``game``/``game_params``."""
    game = make_game("nim", heaps=(1, 3, 5))
    old = {
        "format": "boardgym-alphazero-v1",
        "game": "nim",
        "game_params": json.dumps(game.params(), sort_keys=True, default=list),
        "iteration": 3,
    }
    torch.save(old, tmp_path / "old.pt")
    payload = load_checkpoint(tmp_path / "old.pt", format="boardgym.alphazero/1", game=game)
    assert payload["iteration"] == 3 and payload["game_signature"] == game_signature(game)
    with pytest.raises(BoardgymError, match="trained on nim heaps=1,3,5"):
        load_checkpoint(tmp_path / "old.pt", format="boardgym.alphazero/1", game=make_game("nim", heaps=(1, 3)))


def test_old_game_signature_checkpoints_load_unchanged(tmp_path: Path) -> None:
    """The tabular, PPO, ES, coevolution and NEAT checkpoints already carried ``format`` and
    ``game_signature`` keys of this form: a file written then (by ``torch.save``) loads."""
    game = make_game("tictactoe")
    old = {"format": "boardgym.tabular/1", "game_signature": json.dumps({"game": "tictactoe", "params": {}})}
    torch.save(old, tmp_path / "old.pt")
    assert load_checkpoint(tmp_path / "old.pt", format="boardgym.tabular/1", game=game)["format"] == old["format"]
    torch.save({"table": torch.zeros(1)}, tmp_path / "ancient.pt")  # no format at all
    with pytest.raises(BoardgymError, match=r"its format is None.*boardgym train qlearning --game tictactoe") as error:
        load_checkpoint(tmp_path / "ancient.pt", format="boardgym.tabular/1", game=game, method="qlearning")
    one_sentence(error)


def test_no_path_at_all_says_how_to_get_one() -> None:
    with pytest.raises(
        BoardgymError, match=r"the neat agent needs checkpoint=PATH.*neat:checkpoint=runs/quixo/neat/"
    ) as error:
        load_checkpoint(None, format=FORMAT, game=make_game("quixo"), method="neat")
    one_sentence(error)


def test_retrain_command_spells_the_game_parameters() -> None:
    game = make_game("nim", heaps=(3, 4, 5), misere=True)
    command = retrain_command("es", game)
    assert command.startswith("boardgym train es --game nim") and "-p heaps=3,4,5" in command
    assert "-p misere=True" in command
    assert retrain_command("ppo", None) == "boardgym train ppo --game GAME"


def test_a_checkpoint_this_user_may_not_read_is_not_called_corrupt(tmp_path: Path, monkeypatch) -> None:
    import torch

    path = save_checkpoint(tmp_path / "c.pt", {"x": 1}, format="test/1", game=None)

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(torch, "load", denied)
    with pytest.raises(BoardgymError, match="cannot be opened: Permission denied.*chmod a\\+r") as error:
        load_checkpoint(path)
    assert "corrupt" not in str(error.value)


@pytest.mark.skipif(getattr(os, "geteuid", lambda: 0)() == 0, reason="root reads anything")
def test_a_private_checkpoint_of_another_user_is_not_called_corrupt(tmp_path: Path) -> None:
    path = save_checkpoint(tmp_path / "c.pt", {"x": 1}, format="test/1", game=None)
    path.chmod(0)
    with pytest.raises(BoardgymError, match="cannot be opened"):
        load_checkpoint(path)


SAME_SECOND = {
    "evaluate": (
        ["evaluate", "nim", "--agents", "random", "nimsum", "--games", "2", "--workers", "1", "--no-plots"],
        "nim/evaluate",
        "results.jsonl",
    ),
    "setcover": (
        ["solve", "setcover", "--problem-size", "8", "--num-sets", "8", "--density", "0.5"],
        "setcover/astar",
        "results.json",
    ),
    "blackbox": (
        ["solve", "blackbox", "--instance", "1", "--max-calls", "50", "--genome-length", "8", "--no-plot"],
        "blackbox/linkage",
        "results.json",
    ),
}


@pytest.mark.parametrize("command", sorted(SAME_SECOND))
def test_two_runs_of_a_command_in_the_same_second_get_two_folders(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second run names its default folder before the first has made it; each still
    writes its own folder, and neither overwrites the other's results."""
    import time

    from boardgym.cli import main

    argv, under, results = SAME_SECOND[command]
    argv = [*argv, "--root", str(tmp_path)]
    frozen = time.localtime(1_700_000_000)
    real_strftime = time.strftime
    monkeypatch.setattr(time, "strftime", lambda fmt, when=None: real_strftime(fmt, frozen))
    real_named = RunFolder.named.__func__  # type: ignore[attr-defined]
    calls: list[int] = []

    def named(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        folder = real_named(cls, *args, **kwargs)
        calls.append(1)
        if len(calls) == 1:  # the other run starts and ends now, under the same default name
            assert main([*argv, "--seed", "2"]) == 0
        return folder

    monkeypatch.setattr(RunFolder, "named", classmethod(named))
    assert main([*argv, "--seed", "2"]) == 0
    folders = sorted((tmp_path / under).iterdir())
    name = f"s2-{real_strftime('%Y%m%d-%H%M%S', frozen)}"
    assert [folder.name for folder in folders] == [name, f"{name}-2"]
    assert all((folder / results).is_file() for folder in folders)
