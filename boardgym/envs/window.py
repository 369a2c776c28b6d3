"""The window of ``render_mode="human"``: the game's picture in a pygame window.

Every env that renders for a person holds one ``HumanWindow``. Each ``show`` draws the
position's picture (``boardgym.draw``'s ``rgb_array``, the same pixels ``render_mode=
"rgb_array"`` returns) into the window and then waits for the env's ``metadata["render_fps"]``
(as PettingZoo's classic envs do); the env calls it after every ``reset`` and ``step``, and its
``close()`` closes the window. Closing the window by hand stops the showing for that env.

pygame comes with the ``window`` extra (``pip install "boardgym[window]"``). Where pygame is
missing or no display exists (no ``DISPLAY`` or ``WAYLAND_DISPLAY`` on Linux, or SDL finds
only its offscreen driver) the env warns once, in one sentence, and prints the text board
instead. ``SDL_VIDEODRIVER=dummy`` asks for a window without a screen (what the tests use).
pygame keeps one window per process, so two envs rendering for a person share it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

INSTALL = 'pip install "boardgym[window]"'
"""How a user gets pygame (named in the warning)."""

HEADLESS_DRIVERS = ("dummy", "offscreen")
"""SDL's video drivers without a screen: a window on one is shown only where asked for by name."""

_warned = False


class HumanWindow:
    """One env's window: ``show`` a picture (or the text board where no window can open)."""

    def __init__(self, title: str, fps: float) -> None:
        self.title = title
        self.fps = fps
        self.screen: Any = None  # the pygame display surface while the window is open
        self.clock: Any = None  # pygame.time.Clock: waits out 1/fps between pictures
        self.text_only = False  # no window can open here: print the text board
        self.dismissed = False  # the person closed the window

    def show(self, frame: Callable[[], np.ndarray], text: Callable[[], str]) -> None:
        """Put ``frame()`` (``(height, width, 3)`` uint8) in the window, or print ``text()``
        where no window can open."""
        if self.dismissed:
            return
        if self.screen is None and not self._open():
            print(text(), flush=True)
            return
        import pygame

        picture = frame()
        height, width = picture.shape[:2]
        if self.screen is None or self.screen.get_size() != (width, height):
            self.screen = pygame.display.set_mode((width, height))
            pygame.display.set_caption(self.title)
        pygame.surfarray.blit_array(self.screen, np.ascontiguousarray(picture.swapaxes(0, 1)))
        if pygame.event.get(pygame.QUIT):
            self.dismissed = True
            self.close()
            return
        pygame.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        """Close the window (nothing to do where none opened)."""
        if self.clock is None:
            return
        import pygame

        pygame.display.quit()
        self.screen = None
        self.clock = None

    def _open(self) -> bool:
        """Start pygame's display; ``False`` (and the one warning) where none can open."""
        if self.text_only:
            return False
        reason = no_display_reason()
        pygame: Any = None
        if reason is None:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            try:
                pygame = importlib.import_module("pygame")
            except ImportError:
                reason = f"pygame is not installed ({INSTALL})"
        if pygame is not None and reason is None:
            try:
                pygame.display.init()
            except pygame.error as error:
                reason = f"no display could be opened ({error})"
            else:
                driver = pygame.display.get_driver()
                if driver in HEADLESS_DRIVERS and os.environ.get("SDL_VIDEODRIVER") != driver:
                    pygame.display.quit()
                    reason = "no display was found"
        if reason is not None:
            self.text_only = True
            _warn_once(f"render_mode='human' cannot open a window: {reason}, so the text board is printed instead")
            return False
        self.clock = pygame.time.Clock()
        return True


def no_display_reason() -> str | None:
    """Why no window can open here before trying one (Linux without ``DISPLAY`` or
    ``WAYLAND_DISPLAY``, unless ``SDL_VIDEODRIVER`` names a driver), else ``None``."""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) or os.environ.get("SDL_VIDEODRIVER"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return "no display was found (DISPLAY and WAYLAND_DISPLAY are unset)"


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        gymnasium.logger.warn(message)
