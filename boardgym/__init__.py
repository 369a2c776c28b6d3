"""boardgym: turn-based board games and puzzles as Gymnasium / PettingZoo environments, the
agents that play them, the scripts that train them and the tools that rank them.

``import boardgym`` registers the Gymnasium ids ``boardgym/<Game>-v0``: at once when
gymnasium is already imported, else the moment it is, so that the pure rules
(``boardgym.games``) load without gymnasium, pettingzoo or torch. It also asks the
multiprocessing forkserver to import boardgym, so that worker processes started that way
(Stable-Baselines3's ``SubprocVecEnv``) know the ids even where the main module never imports
boardgym (pytest, Jupyter).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

from boardgym.agents.registry import make_agent
from boardgym.game import Game, GameBase
from boardgym.games import make_game
from boardgym.types import BoardgymError, IllegalActionError

__version__ = "0.1.0"  # the version: pyproject.toml reads it; CITATION.cff repeats it (tests/test_citation.py)
__all__ = ["BoardgymError", "Game", "GameBase", "IllegalActionError", "make_agent", "make_game", "__version__"]


def _register_envs() -> None:
    from boardgym.envs.registration import register_envs

    register_envs()


class _RegisterWhenGymnasiumLoads(importlib.abc.MetaPathFinder):
    """Finds gymnasium as the other finders would, and registers our ids once it has run."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run_module = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            _register_envs()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _preload_in_forkserver() -> None:
    """Add boardgym to the modules the forkserver imports (it keeps ``__main__`` too); no
    effect once a forkserver runs."""
    try:
        from multiprocessing import forkserver

        preload = list(getattr(forkserver._forkserver, "_preload_modules", None) or ["__main__"])
        if __name__ not in preload:
            forkserver.set_forkserver_preload([*preload, __name__])
    except Exception:  # pragma: no cover - a platform without a forkserver
        pass


_preload_in_forkserver()

if "gymnasium" in sys.modules:
    _register_envs()
elif not any(isinstance(finder, _RegisterWhenGymnasiumLoads) for finder in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())
