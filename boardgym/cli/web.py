"""``boardgym serve`` and ``boardgym replay``: their options and what runs them."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from boardgym.config import REQUIRED, Options, option
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class ServeOptions(Options):
    """A local web page to play any game against any agent (the web extra)."""

    host: str = option("127.0.0.1", "address to bind (127.0.0.1: this machine only)")
    port: int = option(8000, "port", minimum=1, maximum=65535)
    checkpoint: tuple[str, ...] = option(
        (),
        "offer a trained agent as @NAME (repeatable); the page never sees the path",
        repeat=True,
        metavar="NAME=PATH",
    )
    workers: int = option(2, "agent worker processes", minimum=1, maximum=64)
    move_seconds: float = option(10.0, "cap on one agent move, seconds", above=0, maximum=3600)
    max_games: int = option(200, "games held at once", minimum=1, maximum=100_000)
    client_games: int = option(20, "games one visitor (browser) may hold at once", minimum=1, maximum=100_000)
    address_games: int = option(
        50,
        "games one network address may hold at once, all its visitors together (behind a proxy: all visitors, "
        "unless --trusted-proxy names it)",
        minimum=1,
        maximum=100_000,
    )
    trusted_proxy: tuple[str, ...] = option(
        (),
        "address of a reverse proxy in front of the server (repeatable): the visitor address it forwards "
        "(X-Forwarded-For) counts instead of its own",
        repeat=True,
        metavar="ADDRESS",
    )
    worker_memory: int = option(
        2048, "address space of each agent worker, MB (0: no cap)", minimum=0, maximum=1_048_576, metavar="MB"
    )

    def check(self) -> None:
        from boardgym.web.offer import checkpoints_from

        checkpoints_from(self.checkpoint)
        for proxy in self.trusted_proxy:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise BoardgymError(
                    f"--trusted-proxy {proxy!r} is not an address or network, e.g. 127.0.0.1 or 10.0.0.0/8"
                ) from None


def serve(options: ServeOptions) -> int:
    from boardgym.web.app import serve as serve_app

    serve_app(
        options.host,
        options.port,
        options.checkpoint,
        workers=options.workers,
        move_seconds=options.move_seconds,
        max_sessions=options.max_games,
        client_games=options.client_games,
        address_games=options.address_games,
        trusted_proxies=options.trusted_proxy,
        worker_memory=options.worker_memory,
    )
    return 0


@dataclass(frozen=True)
class ReplayOptions(Options):
    """Write an HTML replay of a game record."""

    file: Path = option(
        REQUIRED, "a game record .json, or a tournament's results.jsonl", positional=True, metavar="FILE"
    )
    game: int | None = option(None, "game index in a results.jsonl", minimum=0, metavar="K")
    output: Path | None = option(None, "the page (default: beside FILE)", short="-o", metavar="FILE")

    def check(self) -> None:
        if self.output is not None and self.output.suffix.lower() not in (".html", ".htm"):
            raise BoardgymError(f"cannot write a replay to {str(self.output)!r}: name an .html file")


def replay(options: ReplayOptions) -> int:
    from boardgym.evaluate.records import load_record
    from boardgym.web.replay import write_replay

    record = load_record(options.file, options.game)
    source = options.file
    if options.output is not None:
        output = options.output
    elif source.suffix == ".jsonl":
        output = source.with_name(f"replay-game-{options.game if options.game is not None else 'first'}.html")
    else:
        output = source.with_suffix(".html")
    if output.suffix.lower() not in (".html", ".htm"):
        raise BoardgymError(f"cannot write a replay to {str(output)!r}: name an .html file")
    write_replay(record, output)
    print(f"{output}: {record.game}, {len(record.moves)} moves")
    return 0
