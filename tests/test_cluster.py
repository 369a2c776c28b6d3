"""boardgym.cluster: the words of --address, GPU shares, Ray missing or unreachable, and
``imap_chunks`` (every item once, errors as sentences, a dead worker's chunk played again)."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from boardgym.cluster import RayLost, RaySession, check_address, connect_ray, gpu_share, imap_chunks, import_ray
from boardgym.types import BoardgymError


@pytest.mark.parametrize("address", ["auto", "local", "10.1.2.3:6379", "head.example:6380", "ray://10.1.2.3:10001"])
def test_addresses_that_name_a_cluster_pass(address: str) -> None:
    assert check_address(f"  {address} ") == address
    assert check_address(None) is None


@pytest.mark.parametrize(
    "address", ["", "   ", "nonsense", "host:99999", "host:port", ":6379", "ray://", 6379, "1e3:nan"]
)
def test_bad_addresses_are_one_sentence_naming_them(address) -> None:
    with pytest.raises(BoardgymError, match="--address") as caught:
        check_address(address)
    assert repr(address) in str(caught.value)


def test_gpu_shares() -> None:
    assert gpu_share(0, 4, "auto") == 0.0  # no GPU in the cluster: CPU actors
    assert gpu_share(1, 4, "auto") == 0.25
    assert gpu_share(1, 4, "cuda") == 0.25
    assert gpu_share(8, 4, "auto") == 1.0  # at most one each
    assert gpu_share(2, 4, "cpu") == 0.0  # --worker-device cpu keeps actors off the GPUs


def test_without_ray_the_backend_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(BoardgymError, match=r"pip install 'boardgym\[ray\]'.*--backend local"):
        import_ray()
    with pytest.raises(BoardgymError, match="needs Ray"):
        connect_ray()


def test_an_address_where_nothing_listens_fails_fast() -> None:
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'boardgym[ray]'")
    if ray.is_initialized():
        pytest.skip("a Ray is running in this process; an address is not dialled then")
    with socket.socket() as probe:  # a loopback port that nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(BoardgymError, match=f"nothing answers at --address '127.0.0.1:{port}'.*ray start --head"):
        RaySession(f"127.0.0.1:{port}")
    assert not ray.is_initialized()


# -- imap_chunks, on a local Ray -----------------------------------------------------------------


def first_to_mark(marker: str) -> bool:
    """Create ``marker``; True for the one caller that created it (race-free across processes)."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def squares(offset: int, chunk: list[int]) -> list[int]:
    return [offset + i * i for i in chunk]


def refuse(offset: int, chunk: list[int]) -> list[int]:
    raise BoardgymError(f"item {chunk[0]} refused")


def die_once(marker: str, chunk: list[int]) -> list[int]:
    if 5 in chunk and first_to_mark(marker):
        os._exit(1)  # the worker process dies mid-task
    return list(chunk)


def test_every_item_comes_back_once(ray_local) -> None:
    assert sorted(imap_chunks(squares, 100, list(range(50)))) == sorted(100 + i * i for i in range(50))
    assert list(imap_chunks(squares, 0, [])) == []
    assert ray_local.is_initialized()  # a Ray the caller started stays up


def test_an_error_in_a_task_is_its_own_sentence(ray_local) -> None:
    with pytest.raises(BoardgymError, match=r"^item [012] refused$"):
        list(imap_chunks(refuse, 0, [0, 1, 2]))


def test_a_dead_worker_s_chunk_is_played_again(ray_local, tmp_path: Path) -> None:
    marker = tmp_path / "died"
    assert sorted(imap_chunks(die_once, str(marker), list(range(10)))) == list(range(10))
    assert marker.exists()
    marker.unlink()
    with pytest.raises(BoardgymError, match=r"died on every attempt \(1\)"):
        list(imap_chunks(die_once, str(marker), list(range(10)), max_retries=0))


def die_once_each(marker: str, chunk: list[int]) -> list[int]:
    for item in chunk:
        if item in (3, 7) and first_to_mark(f"{marker}-{item}"):
            os._exit(1)  # two workers die, each in its own task
    return list(chunk)


def test_a_retried_task_is_said_once(ray_local, tmp_path: Path, capsys) -> None:
    assert sorted(imap_chunks(die_once_each, str(tmp_path / "died"), list(range(10)))) == list(range(10))
    assert (tmp_path / "died-3").exists() and (tmp_path / "died-7").exists()
    err = capsys.readouterr().err
    assert err.count("a Ray worker died while running a task (WorkerCrashedError); Ray runs it again") == 1


def test_a_dead_ray_system_process_is_one_sentence(ray_local, monkeypatch) -> None:
    def raylet_died(*args, **kwargs):
        raise ray_local.exceptions.LocalRayletDiedError()

    monkeypatch.setattr(ray_local, "wait", raylet_died)
    with pytest.raises(RayLost) as caught:
        list(imap_chunks(squares, 0, list(range(10))))
    assert str(caught.value) == (
        "Ray stopped under the run: the Ray process of this machine (its raylet) died (LocalRayletDiedError)"
    )
    caught.value.resume = "resume with --resume"
    assert str(caught.value).endswith("died (LocalRayletDiedError); resume with --resume")
