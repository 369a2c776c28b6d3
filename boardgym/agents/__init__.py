"""Players: every agent is made from a spec string by ``make_agent``."""

from boardgym.agents.base import Agent, BaseAgent
from boardgym.agents.registry import AGENTS, AgentEntry, agent_class, make_agent, parse_spec

__all__ = ["AGENTS", "Agent", "AgentEntry", "BaseAgent", "agent_class", "make_agent", "parse_spec"]
