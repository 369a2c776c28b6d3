"""AlphaZero: a residual policy/value network, PUCT search over it (the shared ``MCTS``),
batched self-play and the agent that plays from a checkpoint. Training lives in
``boardgym.train.alphazero``."""

from boardgym.agents.alphazero.agent import AlphaZeroAgent, load_network, resolve_device
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network, masked_log_policy, masked_policy
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator
from boardgym.agents.alphazero.replay import ReplayBuffer, augment
from boardgym.agents.alphazero.selfplay import SelfPlayResult, SelfPlaySettings, play_selfplay_games, search_lockstep

__all__ = [
    "AlphaZeroAgent",
    "AlphaZeroNet",
    "NetworkEvaluator",
    "ReplayBuffer",
    "SelfPlayResult",
    "SelfPlaySettings",
    "augment",
    "build_network",
    "load_network",
    "masked_log_policy",
    "masked_policy",
    "play_selfplay_games",
    "resolve_device",
    "search_lockstep",
]
