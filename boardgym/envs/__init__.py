"""Environments over the rules in ``boardgym.games``: the PettingZoo AEC modules
``<game>_v0`` (one generic env, ``core.py``), the single-agent Gymnasium env registered as
``boardgym/<Game>-v0`` (``single_agent.py``) and the puzzles' own Gymnasium envs."""
