"""AlphaZero, what plays: a residual policy/value network (``network``), its leaf evaluator
for the shared ``MCTS`` (``network_leaf``), the agent that searches with it from a checkpoint
(``agent``) and the networks shipped with the package (``pretrained``). Training (self-play,
the replay buffer, the loop) lives in ``boardgym.train.alphazero``."""

from boardgym.agents.alphazero.agent import AlphaZeroAgent, load_network, resolve_device
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network, masked_log_policy, masked_policy
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator

__all__ = [
    "AlphaZeroAgent",
    "AlphaZeroNet",
    "NetworkEvaluator",
    "build_network",
    "load_network",
    "masked_log_policy",
    "masked_policy",
    "resolve_device",
]
