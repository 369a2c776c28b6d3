"""The release a user installs: the version written once, the changelog, and the sdist and
wheel built from this tree, installed in a clean venv and run there.

``test_release_installs_and_runs`` copies the tree, builds the sdist from it and the wheel from
the sdist (as ``python -m build`` does), checks that both hold every file under ``boardgym/``
(so a file left out of ``[tool.setuptools.package-data]`` fails here), installs the wheel with
the web extra in a new venv (``python -m venv``; ``pip install torch==<ours> <wheel>[web]``)
and runs ``tests/smoke_installed.py`` there from a folder outside the repository. It skips
only where pip can reach neither an index nor a cache holding the dependencies, and where the
``CI`` variable is set it fails instead.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import boardgym

REPO = Path(__file__).resolve().parents[1]
SMOKE = Path(__file__).with_name("smoke_installed.py")
SKIPPED_IN_COPY = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "runs",
    "build",
    "dist",
    "site",
    "*.egg-info",
    "__pycache__",
    "*.py[cod]",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    "node_modules",
)
OFFLINE = re.compile(
    r"No matching distribution found|Could not find a version that satisfies|Failed to establish a new connection"
    r"|Temporary failure in name resolution|Network is unreachable|Name or service not known|ConnectTimeout"
    r"|ReadTimeout|Max retries exceeded"
)


def test_version_is_written_once() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "boardgym.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", boardgym.__version__)


def test_changelog_has_unreleased_and_this_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, flags=re.MULTILINE)
    assert headings[:1] == ["Unreleased"] and boardgym.__version__ in headings, headings
    assert re.search(rf"^## \[{re.escape(boardgym.__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.M)


def test_release_installs_and_runs(tmp_path: Path) -> None:
    # The venv (about 1 GB, torch) stays in tmp_path, which pytest removes with the folders of
    # all but its last three sessions; removing it here cost a minute of disk time on a busy machine.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, env=_env())
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    _pip(python, "install", "setuptools>=68")  # the build backend pyproject.toml names

    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=SKIPPED_IN_COPY)
    package_files = {p.relative_to(source).as_posix() for p in (source / "boardgym").rglob("*") if p.is_file()}
    dist = tmp_path / "dist"
    sdist = _run(
        python, "-c", f"from setuptools import build_meta; print(build_meta.build_sdist({str(dist)!r}))", cwd=source
    )
    sdist_path = dist / sdist.strip().splitlines()[-1]
    root = f"boardgym-{boardgym.__version__}"
    assert sdist_path.name == f"{root}.tar.gz"
    with tarfile.open(sdist_path) as archive:
        in_sdist = {name.removeprefix(root + "/") for name in archive.getnames()}
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            archive.extractall(tmp_path / "unpacked", filter="data")
        else:
            archive.extractall(tmp_path / "unpacked")
    _assert_holds("the sdist", in_sdist, package_files)
    for name in ("pyproject.toml", "README.md", "CHANGELOG.md", "MANIFEST.in", "tests/test_release.py"):
        assert name in in_sdist, f"the sdist lacks {name} (MANIFEST.in)"
    assert not any(name.startswith("data/candidates/") for name in in_sdist), "data/candidates went into the sdist"

    _pip(python, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(tmp_path / "unpacked" / root))
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
        metadata = archive.read(f"{root}.dist-info/METADATA").decode()
    _assert_holds("the wheel", in_wheel, package_files)
    assert f"\nVersion: {boardgym.__version__}\n" in metadata

    torch = "torch==" + importlib.metadata.version("torch").split("+")[0]
    _pip(python, "install", "--no-compile", torch, f"{wheel}[web]")  # no .pyc for all of torch: half the time
    outside = tmp_path / "outside"
    outside.mkdir()
    smoke = subprocess.run(
        [str(python), str(SMOKE), str(REPO)], cwd=outside, env=_env(), capture_output=True, text=True, timeout=600
    )
    assert smoke.returncode == 0, f"the smoke test failed in the installed venv:\n{smoke.stdout}\n{smoke.stderr}"
    assert smoke.stdout.count(": ok in ") == 5, smoke.stdout


def _assert_holds(what: str, members: set[str], package_files: set[str]) -> None:
    missing = sorted(package_files - members)
    assert not missing, (
        f"{what} lacks {len(missing)} file(s) of the package, e.g. {missing[:5]}: "
        "add their pattern to [tool.setuptools.package-data] in pyproject.toml"
    )


def _env() -> dict[str, str]:
    """This environment without what would let the repository leak into the venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def _run(python: Path, *args: str, cwd: Path) -> str:
    done = subprocess.run([str(python), *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _pip(python: Path, *args: str) -> None:
    """``pip ARGS`` in the venv; a skip (a failure under CI) where the packages cannot be had."""
    done = subprocess.run(
        [str(python), "-m", "pip", "--quiet", *args], env=_env(), capture_output=True, text=True, timeout=1800
    )
    if done.returncode == 0:
        return
    output = done.stdout + done.stderr
    if OFFLINE.search(output):
        reason = "pip can reach no index or cache holding the release's dependencies: " + output.strip()[-300:]
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the release: {reason}")
        pytest.skip(reason)
    pytest.fail(f"pip {' '.join(args)} failed:\n{output[-4000:]}")
