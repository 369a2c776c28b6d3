"""Boards in the browser: ``boardgym serve`` (a local page to play any game against any agent,
``boardgym.web.app``) and ``boardgym replay`` (self-contained HTML replays of game records,
``boardgym.web.replay``). The server needs the ``web`` extra: ``pip install "boardgym[web]"``.
"""
