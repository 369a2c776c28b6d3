"""``render_mode="human"``: a pygame window holding the game's picture after every reset and
step, at ``render_fps``, closed by ``close()`` (SDL's dummy driver stands in for a screen); and
where no window can open (no display, no pygame) one warning and the text board, no crash."""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import boardgym  # noqa: F401  (registers the gym ids)
from boardgym.envs import window
from boardgym.games import GAMES, make_game

pygame = pytest.importorskip("pygame", reason='pygame is missing: pip install "boardgym[window]" (or the dev extra)')

IDS = [f"boardgym/{entry.gym_name}-v0" for entry in GAMES.values()]
TWO_PLAYER = [name for name in GAMES if make_game(name).num_players == 2]


class RecordingClock:
    """Stands in for ``pygame.time.Clock``: records the frame rate of each tick, waits not."""

    ticks: list[float] = []

    def tick(self, fps: float = 0) -> int:
        RecordingClock.ticks.append(fps)
        return 0


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A display without a screen (SDL's dummy driver), a clock that records, no warning yet."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setattr(pygame.time, "Clock", RecordingClock)
    monkeypatch.setattr(window, "_warned", False)
    RecordingClock.ticks = []
    yield
    pygame.display.quit()


@pytest.fixture
def no_screen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(window, "_warned", False)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    yield
    pygame.display.quit()


def shown() -> np.ndarray:
    """The pixels of the open window, as ``(height, width, 3)``."""
    surface = pygame.display.get_surface()
    assert surface is not None, "no window is open"
    return np.asarray(pygame.surfarray.array3d(surface)).swapaxes(0, 1)


def picture_of(env: Any) -> np.ndarray:
    """What ``render_mode="rgb_array"`` gives for the env's position."""
    env.render_mode = "rgb_array"
    try:
        return env.render()
    finally:
        env.render_mode = "human"


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_aec_window_shows_the_picture_after_every_step(screen: None, name: str) -> None:
    env = importlib.import_module(f"boardgym.envs.{name}_v0").env(render_mode="human")
    env.reset(seed=0)
    assert pygame.display.get_caption()[0] == f"boardgym: {name}"
    np.testing.assert_array_equal(shown(), picture_of(env))
    rng = np.random.default_rng(0)
    for _ in range(3):
        before = shown()
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not np.array_equal(shown(), before)
        np.testing.assert_array_equal(shown(), picture_of(env))
    assert env.render() is None
    assert RecordingClock.ticks == [env.metadata["render_fps"]] * 5
    env.close()
    assert not pygame.display.get_init()


@pytest.mark.parametrize("env_id", IDS)
def test_gym_window_on_every_id(screen: None, env_id: str) -> None:
    env = gym.make(env_id, render_mode="human")
    env.reset(seed=1)
    unwrapped = env.unwrapped
    np.testing.assert_array_equal(shown(), picture_of(unwrapped))
    if isinstance(env.action_space, gym.spaces.MultiBinary):
        env.step(np.ones(env.action_space.n, dtype=np.int8))
    else:
        env.step(int(np.flatnonzero(unwrapped.action_masks())[0]))
    np.testing.assert_array_equal(shown(), picture_of(unwrapped))
    assert RecordingClock.ticks == [unwrapped.metadata["render_fps"]] * 2
    env.close()
    assert not pygame.display.get_init()


def test_closing_the_window_by_hand_stops_the_showing(screen: None, capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make("boardgym/TicTacToe-v0", render_mode="human", seat=0)
    env.reset(seed=0)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    env.step(4)
    assert not pygame.display.get_init()
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert not pygame.display.get_init() and capsys.readouterr().out == ""
    env.close()


def no_display_cases() -> list[Any]:
    return [
        pytest.param({}, "no display was found", id="no-DISPLAY"),
        pytest.param({"SDL_VIDEODRIVER": "x11"}, "no display could be opened", id="driver-fails"),
        pytest.param({"DISPLAY": ":97"}, "no display", id="unreachable-DISPLAY"),
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display variables are Linux's")
@pytest.mark.parametrize(("variables", "reason"), no_display_cases())
def test_no_display_warns_once_and_prints_the_text_board(
    no_screen: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variables: dict[str, str],
    reason: str,
) -> None:
    for key, value in variables.items():
        monkeypatch.setenv(key, value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = importlib.import_module("boardgym.envs.tictactoe_v0").env(render_mode="human")
        first.reset(seed=0)
        first.step(4)
        second = gym.make("boardgym/Nim-v0", render_mode="human", seat=0)
        second.reset(seed=0)
        first.close()
        second.close()
    messages = [str(w.message) for w in caught if "render_mode='human'" in str(w.message)]
    assert len(messages) == 1, messages
    assert reason in messages[0] and "text board is printed instead" in messages[0]
    assert messages[0].count(".") <= 1  # one sentence
    out = capsys.readouterr().out
    game = first.game
    assert game.render(first.game_state) in out and game.render(game.initial_state()) in out
    assert second.unwrapped.game.render(second.unwrapped.state) in out
    assert not pygame.display.get_init()


def test_without_pygame_the_warning_says_how_to_get_it(
    screen: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)
    env = gym.make("boardgym/BlackBox-v0", instance=2, genome_length=8, render_mode="human")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.reset(seed=0)
        env.step(np.ones(8, dtype=np.int8))
    messages = [str(w.message) for w in caught if "render_mode='human'" in str(w.message)]
    assert len(messages) == 1 and 'pip install "boardgym[window]"' in messages[0], messages
    assert "fitness 1.0000" in capsys.readouterr().out
    env.close()
