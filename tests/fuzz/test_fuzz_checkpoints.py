"""Corrupt and malicious checkpoints through every loader: each learned agent's
``checkpoint=`` and ``--resume`` of every training method. A pickle that would run code is
refused without running it; cut, flipped or random bytes and content of the wrong shape are
one sentence; nothing else escapes."""

from __future__ import annotations

import io
import os
import pickle
import sys
import zipfile
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardgym import BoardgymError, make_agent
from boardgym.checkpoints import save_checkpoint
from boardgym.cli import main
from boardgym.train import METHODS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "train"))
from test_learned_checkpoints import CASES  # noqa: E402  (the intact checkpoints of every learned agent)
from test_run_contract import TINY  # noqa: E402  (a tiny run of every method)

FAST = settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
HEAVY = settings(max_examples=1000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
MARKER = "BOARDGYM_FUZZ_MARKER"


class _RunsCode:
    """Unpickling this calls ``os.system`` (touching the marker file): what a malicious file does."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def malicious_files(folder: Path) -> list[Path]:
    """A torch zip and a plain pickle that would each run code when unpickled."""
    marker = folder / "ran"
    as_torch = folder / "evil-torch.pt"
    torch.save({"format": "boardgym.tabular/1", "payload": _RunsCode(marker)}, as_torch)
    as_pickle = folder / "evil-pickle.pt"
    as_pickle.write_bytes(pickle.dumps({"format": "boardgym.ppo/1", "policy": _RunsCode(marker)}))
    return [as_torch, as_pickle]


def intact(case: str, folder: Path) -> Path:
    agent, game, format, make = CASES[case]
    return save_checkpoint(folder / f"{case}.pt", make(), format=format, game=game)


def damaged(data: bytes, how: str, where: float, width: int) -> bytes:
    if how == "cut":
        return data[: int(len(data) * where)]
    if how == "flip":
        at = min(len(data) - 1, int(len(data) * where))
        return data[:at] + bytes(b ^ 0xFF for b in data[at : at + width]) + data[at + width :]
    if how == "member":  # a torch zip with one of its members replaced by junk
        source = zipfile.ZipFile(io.BytesIO(data))
        names = source.namelist()
        target = names[min(len(names) - 1, int(len(names) * where))]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as copy:
            for name in names:
                copy.writestr(name, os.urandom(width) if name == target else source.read(name))
        return out.getvalue()
    return os.urandom(width * 16)


def load_agent(case: str, path: Path) -> None:
    agent, game, _, _ = CASES[case]
    try:
        make_agent(f"{agent}:checkpoint={path}", game, seed=0)
    except BoardgymError as error:
        assert "\n" not in str(error) and str(path) in str(error)


@pytest.mark.parametrize("case", list(CASES))
def test_a_pickle_that_would_run_code_is_refused_by_every_agent(case: str, tmp_path: Path) -> None:
    agent, game, _, _ = CASES[case]
    for path in malicious_files(tmp_path):
        with pytest.raises(BoardgymError, match="cannot be read"):
            make_agent(f"{agent}:checkpoint={path}", game, seed=0)
    assert not (tmp_path / "ran").exists()


def resume_argv(method: str, root: Path) -> list[str]:
    game, _, options, (flag, first, _) = TINY[method]
    return ["train", method, "--game", game, *options, flag, str(first), "--root", str(root), "--no-progress"]


def resume_folder(method: str, root: Path) -> Path:
    game, _, _, _ = TINY[method]
    folder = root / game / method / "fuzzed"
    folder.mkdir(parents=True)
    return folder


@pytest.mark.parametrize("method", list(METHODS))
def test_resume_of_every_method_refuses_malicious_and_junk_checkpoints(
    method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "runs"
    bad = [*malicious_files(tmp_path), tmp_path / "junk.pt", tmp_path / "empty.pt", tmp_path / "other.pt"]
    bad[2].write_bytes(os.urandom(300))
    bad[3].write_bytes(b"")
    save_checkpoint(bad[4], {"x": 1}, format="boardgym.other/1", game=None)
    for path in bad:
        folder = resume_folder(method, root)
        (folder / "checkpoint.pt").write_bytes(path.read_bytes())
        assert main([*resume_argv(method, root), "--run-name", "fuzzed", "--resume"]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and len([line for line in err.splitlines() if "error:" in line]) == 1
        assert "checkpoint.pt" in err
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("case", list(CASES))
@FAST
@given(
    how=st.sampled_from(["cut", "flip", "member", "random"]),
    where=st.floats(0.0, 1.0),
    width=st.integers(1, 64),
)
def test_damaged_bytes_through_every_agent(
    case: str, how: str, where: float, width: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _damage_and_load(case, how, where, width, tmp_path_factory)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
@HEAVY
@given(
    how=st.sampled_from(["cut", "flip", "member", "random"]),
    where=st.floats(0.0, 1.0),
    width=st.integers(1, 256),
)
def test_damaged_bytes_through_every_agent_heavy(
    case: str, how: str, where: float, width: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _damage_and_load(case, how, where, width, tmp_path_factory)


# -- broken content through --resume: a real tiny run of each method, its checkpoint mutated --------
@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trained") / "runs"
    for method in METHODS:
        assert main([*resume_argv(method, root), "--run-name", "base", "--seed", "0"]) == 0
    return root


def mutations(payload: dict) -> list[tuple[str, dict]]:
    out = []
    for key, value in payload.items():
        if key in ("format", "game_signature"):
            continue
        out.append((f"drop {key}", {k: v for k, v in payload.items() if k != key}))
        for label, bad in (
            ("text", "x"),
            ("none", None),
            ("tensor", torch.ones(3, 2)),
            ("nan", torch.full((4,), float("nan"))),
        ):
            out.append((f"{key}={label}", {**payload, key: bad}))
        if torch.is_tensor(value) and value.numel() > 1:
            out.append((f"{key} shorter", {**payload, key: value.flatten()[:-1]}))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("method", list(METHODS))
def test_resume_with_broken_content(method: str, trained: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    game, _, options, (flag, _, second) = TINY[method]
    base = trained / game / method / "base"
    payload = torch.load(base / "checkpoint.pt", weights_only=True)
    for index, (label, mutated) in enumerate(mutations(payload)):
        name = f"m{index}"
        shutil.copytree(base, base.parent / name, ignore=shutil.ignore_patterns(".lock"))
        buffer = io.BytesIO()
        torch.save(mutated, buffer)
        (base.parent / name / "checkpoint.pt").write_bytes(buffer.getvalue())
        argv = ["train", method, "--game", game, *options, flag, str(second), "--root", str(trained)]
        code = main([*argv, "--no-progress", "--run-name", name, "--resume"])
        err = capsys.readouterr().err
        assert code in (0, 2) and "Traceback" not in err, (label, err)
        if code == 2:
            assert len([line for line in err.splitlines() if "error:" in line]) == 1, (label, err)
        shutil.rmtree(base.parent / name)


def _damage_and_load(case: str, how: str, where: float, width: int, factory: pytest.TempPathFactory) -> None:
    """Write the case's intact checkpoint, damage its bytes, and load it through the agent."""
    folder = factory.mktemp("ckpt")
    path = intact(case, folder)
    path.write_bytes(damaged(path.read_bytes(), how, where, width))
    load_agent(case, path)
