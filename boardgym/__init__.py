"""boardgym: turn-based board games and puzzles as Gymnasium / PettingZoo environments, the
agents that play them, the scripts that train them and the tools that rank them.

``import boardgym`` registers the Gymnasium ids ``boardgym/<Game>-v0``.
"""

from boardgym.agents.registry import make_agent
from boardgym.envs.registration import register_envs
from boardgym.envs.registry import make_game
from boardgym.game import Game, GameBase
from boardgym.types import BoardgymError, IllegalActionError

__version__ = "0.1.0"
__all__ = ["BoardgymError", "Game", "GameBase", "IllegalActionError", "make_agent", "make_game", "__version__"]

register_envs()
