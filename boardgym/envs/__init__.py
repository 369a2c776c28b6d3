"""Games and their environments: rules objects, PettingZoo AEC modules ``<game>_v0`` and the
single-agent Gymnasium envs registered as ``boardgym/<Game>-v0``."""

from boardgym.envs.registry import GAMES, GameEntry, game_class, make_game, parse_game_params

__all__ = ["GAMES", "GameEntry", "game_class", "make_game", "parse_game_params"]
