"""What a checkpoint may ask a loader to allocate: expanded tensors, declared architectures
beyond sane bounds, networks beyond the parameter limit (and its override), and files cut
short. Each is refused in one sentence before anything large is built."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.agents.alphazero.agent import FORMAT as ALPHAZERO
from boardgym.agents.alphazero.agent import checkpoint_payload, network_from_payload, save_network
from boardgym.agents.alphazero.network import build_network
from boardgym.agents.torch_policy import FORMAT as TORCH_POLICY
from boardgym.checkpoints import (
    DEFAULT_MAX_PARAMETERS,
    MAX_LAYERS,
    MAX_WIDTH,
    PARAMETERS_ENV,
    check_mlp_sizes,
    check_parameter_count,
    check_stored_tensors,
    load_checkpoint,
    max_parameters,
    save_checkpoint,
)
from boardgym.types import BoardgymError

TICTACTOE = make_game("tictactoe")
ROOT = Path(__file__).resolve().parents[1]


def one_sentence(error: pytest.ExceptionInfo[BoardgymError]) -> str:
    message = str(error.value)
    assert "\n" not in message and ". " not in message and "Traceback" not in message, message
    return message


def expanded_policy(path: Path, hidden: int = 10**8) -> Path:
    """The issue's file: 2 KB of ``torch:`` policy whose stride-0 weights stand for 7.2 GB."""
    z = torch.zeros(1)
    weights = {
        "0.weight": z.expand(hidden, 18),
        "0.bias": z.expand(hidden),
        "1.weight": z.expand(9, hidden),
        "1.bias": torch.zeros(9),
    }
    payload = {"architecture": {"kind": "mlp", "sizes": [18, hidden, 9], "activation": "ReLU"}, "framework": "x"}
    return save_checkpoint(path, {**payload, "weights": weights}, format=TORCH_POLICY, game=TICTACTOE)


def test_an_expanded_torch_policy_is_refused_before_it_is_copied(tmp_path: Path) -> None:
    path = expanded_policy(tmp_path / "big.pt")
    assert path.stat().st_size < 10_000
    with pytest.raises(BoardgymError, match=r"weights\.\d\.\w+ .* expanded or strided tensor") as error:
        make_agent(f"torch:checkpoint={path}", TICTACTOE)
    assert str(path) in one_sentence(error)


def test_the_issue_command_under_a_memory_limit_is_one_sentence(tmp_path: Path) -> None:
    """``(ulimit -v 7000000; boardgym evaluate tictactoe --agents torch:checkpoint=big.pt random)``
    printed a traceback ending in "tried to allocate 7200000000 bytes"."""
    path = expanded_policy(tmp_path / "big.pt")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (7_000_000 * 1024, 7_000_000 * 1024))

    command = "import sys; from boardgym.cli import main; sys.exit(main())"
    argv = ["evaluate", "tictactoe", "--agents", f"torch:checkpoint={path}", "random", "--games", "4"]
    argv += ["--root", str(tmp_path / "runs"), "--no-plots"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", command, *argv], capture_output=True, text=True, timeout=300, preexec_fn=limit, env=env
    )
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "expanded or strided" in lines[0] and "Traceback" not in done.stderr, done.stderr


def test_an_expanded_tianshou_state_dict_is_refused(tmp_path: Path) -> None:
    z = torch.zeros(1)
    hidden = 10**8
    state = {
        "model.model.model.0.weight": z.expand(hidden, 18),
        "model.model.model.0.bias": z.expand(hidden),
        "model.model.model.2.weight": z.expand(9, hidden),
        "model.model.model.2.bias": torch.zeros(9),
    }
    torch.save(state, tmp_path / "policy.pth")
    with pytest.raises(BoardgymError, match="expanded or strided") as error:
        make_agent(f"tianshou:checkpoint={tmp_path / 'policy.pth'}", TICTACTOE)
    one_sentence(error)


def test_an_expanded_alphazero_state_dict_is_refused(tmp_path: Path) -> None:
    """The issue's 11 KB AlphaZero file that reached 5.3 GB: weights of a wide network, expanded."""
    with torch.device("meta"):
        wide = build_network(TICTACTOE, blocks=2, channels=1024)
    architecture = wide.architecture()
    state = {key: torch.zeros((), dtype=value.dtype).expand(value.shape) for key, value in wide.state_dict().items()}
    path = save_checkpoint(
        tmp_path / "az.pt", {"architecture": architecture, "state_dict": state}, format=ALPHAZERO, game=TICTACTOE
    )
    assert path.stat().st_size < 20_000
    with pytest.raises(BoardgymError, match="expanded or strided") as error:
        make_agent(f"alphazero:checkpoint={path}", TICTACTOE)
    one_sentence(error)


def _load_architecture(tmp_path: Path, **sizes: object) -> None:
    payload = checkpoint_payload(build_network(TICTACTOE, blocks=1, channels=4))
    payload["architecture"] = {**payload["architecture"], **sizes}
    path = save_checkpoint(tmp_path / "arch.pt", payload, format=ALPHAZERO, game=TICTACTOE)
    make_agent(f"alphazero:checkpoint={path}", TICTACTOE)


def test_an_alphazero_architecture_of_ten_million_blocks_is_refused_at_once(tmp_path: Path) -> None:
    """``blocks=10**7`` took about 2 hours and 190 GB to build; in a child under a timeout so
    that a return of the old behaviour fails instead of hanging the suite."""
    payload = checkpoint_payload(build_network(TICTACTOE, blocks=1, channels=4))
    payload["architecture"] = {**payload["architecture"], "blocks": 10**7}
    path = save_checkpoint(tmp_path / "blocks.pt", payload, format=ALPHAZERO, game=TICTACTOE)
    script = (
        "import sys; from boardgym import make_agent, make_game, BoardgymError\n"
        "try: make_agent(f'alphazero:checkpoint={sys.argv[1]}', make_game('tictactoe'))\n"
        "except BoardgymError as error: print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120, env=env
    )
    assert "blocks=10000000 is not a whole number from 0 to 64" in done.stdout, done.stdout + done.stderr[-2000:]


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ({"channels": 4096}, "channels=4096 is not a whole number from 1 to 1024"),
        ({"channels": 2.5}, "channels=2.5 is not a whole number"),
        ({"blocks": True}, "blocks=True is not a whole number"),
        ({"value_hidden": -1}, "value_hidden=-1 is not a whole number from 1 to 4096"),
        ({"num_actions": None}, "num_actions=None is not a whole number"),
        ({"observation_shape": [3, 3, 3, 3]}, "observation_shape=.* is not 1 to 3 whole numbers"),
        ({"observation_shape": [10**6]}, "observation_shape=.* is not 1 to 3 whole numbers from 1 to 1024"),
    ],
)
def test_an_alphazero_architecture_out_of_bounds_is_one_sentence(tmp_path: Path, sizes: dict, expected: str) -> None:
    with pytest.raises(BoardgymError, match=expected) as error:
        _load_architecture(tmp_path, **sizes)
    one_sentence(error)


def test_the_parameter_limit_and_its_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    network = build_network(TICTACTOE, blocks=1, channels=8)
    count = sum(value.numel() for value in network.state_dict().values())
    path = save_network(tmp_path / "small.pt", network, TICTACTOE)
    assert max_parameters() == DEFAULT_MAX_PARAMETERS
    monkeypatch.setenv(PARAMETERS_ENV, str(count - 1))
    with pytest.raises(BoardgymError, match=f"{count:,} parameters, more than the {count - 1:,}.*{PARAMETERS_ENV}="):
        make_agent(f"alphazero:checkpoint={path}", TICTACTOE)
    monkeypatch.setenv(PARAMETERS_ENV, str(count))
    make_agent(f"alphazero:checkpoint={path}", TICTACTOE, seed=0)
    monkeypatch.setenv(PARAMETERS_ENV, "lots")
    with pytest.raises(BoardgymError, match=f"{PARAMETERS_ENV}='lots' is not a whole number") as error:
        check_parameter_count(1, "x")
    one_sentence(error)


def test_within_bounds_but_over_the_limit_is_refused_before_building() -> None:
    """64 blocks of 1024 channels are each within bounds, together 1.2 billion parameters."""
    payload = checkpoint_payload(build_network(TICTACTOE, blocks=1, channels=4))
    payload["architecture"] = {**payload["architecture"], "blocks": 64, "channels": 1024}
    with pytest.raises(BoardgymError, match=r"declares a network of 1,2\d\d,\d+,\d+ parameters") as error:
        network_from_payload(payload)
    one_sentence(error)


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ([18, MAX_WIDTH + 1, 9], f"a layer of {MAX_WIDTH + 1} units"),
        ([18] * (MAX_LAYERS + 2), f"{MAX_LAYERS + 2} sizes, not 2 to {MAX_LAYERS + 1}"),
        ([18, 2.0, 9], "a layer of 2.0 units"),
        ("18,9", "layer sizes 18,9"),
        ([18, MAX_WIDTH, MAX_WIDTH, 9], "parameters, more than"),
    ],
)
def test_declared_mlp_sizes_are_bounded(sizes: object, expected: str) -> None:
    with pytest.raises(BoardgymError, match=expected) as error:
        check_mlp_sizes(sizes, "policy file 'p.pt'", "save it again")
    one_sentence(error)


def test_a_torch_policy_declaring_a_huge_layer_is_refused_before_its_weights_are_read(tmp_path: Path) -> None:
    weights = {"0.weight": torch.zeros(9, 18), "0.bias": torch.zeros(9)}
    payload = {"architecture": {"kind": "mlp", "sizes": [18, 10**8, 9], "activation": "ReLU"}, "weights": weights}
    path = save_checkpoint(tmp_path / "p.pt", payload, format=TORCH_POLICY, game=TICTACTOE)
    with pytest.raises(BoardgymError, match="a layer of 100000000 units") as error:
        make_agent(f"torch:checkpoint={path}", TICTACTOE)
    one_sentence(error)


def test_stored_tensors_refuse_views_and_accept_their_own_storage() -> None:
    check_stored_tensors({"a": torch.zeros(3, 4), "b": [torch.zeros(0), torch.ones(1)]}, "f", "fix it")
    for bad in (torch.zeros(1).expand(5), torch.zeros(4, 4).t(), torch.zeros(8)[::2]):
        with pytest.raises(BoardgymError, match="not its own") as error:
            check_stored_tensors({"nested": {"x": bad}}, "f", "fix it")
        assert "tensor nested.x" in one_sentence(error)
    with pytest.raises(BoardgymError, match="not as a plain dense tensor"):
        check_stored_tensors([torch.zeros(3).to_sparse()], "f", "fix it")


def test_a_cut_off_checkpoint_is_called_damaged_not_unreadable(tmp_path: Path) -> None:
    """``head -c 8000 final.pt > cut.pt`` was reported as a permissions problem (chmod a+r)."""
    final = save_network(tmp_path / "final.pt", build_network(TICTACTOE), TICTACTOE)
    cut = tmp_path / "cut.pt"
    cut.write_bytes(final.read_bytes()[:8000])
    with pytest.raises(BoardgymError, match="damaged or incomplete") as error:
        make_agent(f"alphazero:checkpoint={cut}", TICTACTOE)
    assert "chmod" not in one_sentence(error)
    with pytest.raises(BoardgymError, match="damaged or incomplete") as error:
        load_checkpoint(cut)
    assert "chmod" not in one_sentence(error)
    policy = tmp_path / "policy.pt"
    torch.save({"model.model.model.0.weight": torch.zeros(64, 18)}, policy)
    (tmp_path / "cut.pth").write_bytes(policy.read_bytes()[:1500])
    with pytest.raises(BoardgymError, match="damaged or incomplete") as error:
        make_agent(f"tianshou:checkpoint={tmp_path / 'cut.pth'}", TICTACTOE)
    assert "chmod" not in one_sentence(error)
