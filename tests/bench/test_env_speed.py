"""The rules benchmark gives both sides the same loop: same calls per move, same random picks."""

from __future__ import annotations

from boardgym.bench import env_speed
from boardgym.games import make_game


class CountingGame:
    """Wraps our rules and counts each call, as the stub state below counts OpenSpiel's."""

    def __init__(self, game, log):
        self.game, self.log = game, log

    def initial_state(self):
        self.log.append("initial")
        return self.game.initial_state()

    def is_terminal(self, state):
        self.log.append("terminal")
        return self.game.is_terminal(state)

    def legal_actions(self, state):
        self.log.append("legal")
        return self.game.legal_actions(state)

    def apply(self, state, action):
        self.log.append(("apply", action))
        return self.game.apply(state, action)


class StubState:
    def __init__(self, game, log):
        self.game, self.log, self.state = game, log, game.initial_state()

    def is_terminal(self):
        self.log.append("terminal")
        return self.game.is_terminal(self.state)

    def legal_actions(self):
        self.log.append("legal")
        return self.game.legal_actions(self.state)

    def apply_action(self, action):
        self.log.append(("apply", action))
        self.state = self.game.apply(self.state, action)


class StubSpielGame:
    def __init__(self, game, log):
        self.game, self.log = game, log

    def new_initial_state(self):
        self.log.append("initial")
        return StubState(self.game, self.log)


def test_both_sides_make_the_same_calls_and_the_same_moves(monkeypatch) -> None:
    monkeypatch.setattr(env_speed, "_CLOCK", [iter(range(0, 10**6, 1)).__next__])  # one look: one pass
    game = make_game("connect_four")
    ours, theirs = [], []
    assert env_speed.rules_steps_per_second(CountingGame(game, ours), 1.5, seed=3) > 0
    assert env_speed.openspiel_steps_per_second(StubSpielGame(game, theirs), 1.5, seed=3) > 0
    assert ours == theirs and ours.count("initial") == env_speed.PLAYOUTS_PER_CLOCK
