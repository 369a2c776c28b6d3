"""The skeleton every training method shares: ``TrainingRun``.

A method declares its ``Config`` as a subclass of ``RunConfig`` (the fields every method has:
game, game parameters, seed, run folder, resume, progress bar, periodic measurement) and writes
only its own loop inside ``with TrainingRun(config, METHOD, format=FORMAT, ...) as run:``.
The run owns:

- the game the config names (``--game``, ``-p KEY=VALUE`` read by the game's annotations);
- the run folder ``<root>/<game>/<method>/<run-name>/`` and its lock (a second process on the
  same folder is refused), and the resume check: an existing run is never overwritten (pass
  ``--resume``), and ``--resume`` needs the folder's ``checkpoint.pt`` (read into
  ``run.resumed``, checked for its format and game);
- ``config.json``, the TensorBoard writer (``run.log``; the tags' namespaces are
  ``boardgym.train.scalars``'s), the progress bar (``run.advance``, ``--no-progress``; off by
  default where stderr is not a terminal) and the hyper-parameters: as a table under
  ``hparams/config``, and as the run's session of TensorBoard's HParams tab, started when the
  run first opens (TensorBoard keeps the first start of a session) and ended as a success by
  ``run.finish`` (a run that failed or was interrupted shows as unknown until a ``--resume``
  finishes it); the tab's metrics are the run's scalars, each at its last value;
- the step counter ``run.step`` (episodes, timesteps, generations or iterations), stamped in
  every checkpoint as ``step`` and restored on ``--resume``, and the common count
  ``run.games``, the training games played, logged as ``progress/games`` beside every
  ``run.log`` and kept in the checkpoints as ``games``;
- periodic measurement during training (``run.measure``): a few games, seats alternating,
  against ``random`` and the game's baseline (``perfect`` where exhaustive search is cheap,
  else ``minimax:depth=2``), logged as ``eval/win_rate_vs_<name>``, ``eval/draw_rate_vs_<name>``,
  ``eval/loss_rate_vs_<name>`` and ``eval/score_vs_<name>``, and where the game has a graded
  position set that is cheap to build (``boardgym.evaluate.grade``: tic-tac-toe, Nim, Hex 3x3,
  Connect Four) ``eval/mistake_rate`` on a fixed sample of it. These are quick in-process checks;
  ``boardgym evaluate`` measures a finished agent properly;
- checkpoints written atomically (``run.save``: ``checkpoint.pt``, what ``--resume`` reads;
  ``run.finish``: ``final.pt``, what ``make_agent("<agent>:checkpoint=...")`` reads);
- closing all of it (bar, writer, lock, whatever ``run.on_close`` was given) however the loop
  ends. A fresh run refused for bad input before its first checkpoint leaves an empty folder.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from boardgym.agents.base import Agent
from boardgym.agents.registry import make_agent
from boardgym.checkpoints import checkpoint_content, load_checkpoint, save_checkpoint
from boardgym.cluster import RayLost
from boardgym.config import (
    Options,
    config_to_dict,
    game_params_option,
    option,
    options_from_argv,
    progress_bar,
    progress_option,
    seed_option,
    write_config,
)
from boardgym.evaluate.grade import mistake_rate
from boardgym.evaluate.match import play_games
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.runs import CHECKPOINT, FINAL, RunFolder, check_run_name, os_error_sentence
from boardgym.train.scalars import (
    GAMES_TAG,
    log_config_table,
    log_session_end,
    log_session_start,
    make_writer,
)
from boardgym.types import BoardgymError

C = TypeVar("C", bound="RunConfig")
_WORDS = {1: "one", 2: "two"}

_OLD_STEP_KEYS = ("episodes_done", "timesteps", "generation", "iteration")
"""Where checkpoints written before ``step`` kept their count, so that old runs still resume."""


@dataclass(frozen=True)
class RunConfig(Options):
    """The options every training method has; each method's ``Config`` extends it (and may
    redeclare a field to change its default or help: the field's rules carry over)."""

    game: str = option("tictactoe", "game to train on (boardgym list games)")
    game_params: dict[str, Any] = game_params_option("game parameter, repeatable: -p size=3 -p max_moves=40")
    seed: int = seed_option(0, "seed of every random choice of the run (training and measurement games)")
    eval_every: int = option(
        0, "steps between measurements against random and the baseline (0: at the end only)", minimum=0
    )
    eval_games: int = option(100, "games per measurement and opponent, seats alternating", minimum=1)
    run_name: str | None = option(
        None, "run folder name under <root>/<game>/<method>/ (default: s<seed>-<date>-<time>)"
    )
    root: str = option("runs", "root folder of the runs")
    resume: bool = option(False, "continue the run in --run-name from its checkpoint.pt")
    progress: bool = progress_option()

    def check(self) -> None:
        game_from_config(self)  # an unknown game or a bad parameter: one sentence, now
        if self.resume and not self.run_name:
            raise BoardgymError("--resume needs --run-name NAME: the run folder to continue")
        if self.run_name:
            check_run_name(self.run_name)


def game_from_config(config: RunConfig) -> Game:
    """The game a config names: ``--game quixo -p size=3``."""
    return make_game(config.game, **config.game_params)


def baseline_spec(game: Game) -> str | None:
    """The strongest cheap opponent for ``game``: ``perfect`` where exhaustive search is cheap,
    else shallow ``minimax``; None for puzzles (only ``random`` then)."""
    if game.num_players != 2:
        return None
    return "perfect" if game.solvable_by_search else "minimax:depth=2"


GRADE_SAMPLE = 100
"""Positions of the graded set that ``measure`` plays for ``eval/mistake_rate``."""


def default_opponents(game: Game) -> dict[str, Agent | str]:
    """``{"random": "random", "<baseline>": agent}``: whom every method measures against."""
    opponents: dict[str, Agent | str] = {"random": "random"}
    baseline = baseline_spec(game)
    if baseline is not None:
        opponents[baseline.partition(":")[0]] = make_agent(baseline, game, seed=0)
    return opponents


def measure_against(
    game: Game, agent: Agent, opponents: dict[str, Agent | str], games: int, seed: int = 0
) -> dict[str, float]:
    """``eval/...`` scalars of ``agent`` against each named opponent, seats alternating."""
    scalars: dict[str, float] = {}
    for index, (name, opponent) in enumerate(opponents.items()):
        summary = play_games(game, agent, opponent, games, seed=seed + index)
        scalars[f"eval/win_rate_vs_{name}"] = summary.wins / summary.games
        scalars[f"eval/draw_rate_vs_{name}"] = summary.draws / summary.games
        scalars[f"eval/loss_rate_vs_{name}"] = summary.losses / summary.games
        scalars[f"eval/score_vs_{name}"] = summary.score
    return scalars


class TrainingRun:
    """One training run of ``method`` described by ``config`` (see the module docstring).

    ``format``: the checkpoint format tag of the method; ``total`` and ``unit``: the progress
    bar's length and what it counts; ``resume_keys``: what ``checkpoint.pt`` must hold to be
    resumed; ``notes``: extra entries for ``config.json`` (e.g. the device picked); ``players``:
    the numbers of players of the games the method trains (another game is refused at once).
    """

    def __init__(
        self,
        config: RunConfig,
        method: str,
        *,
        format: str,
        total: int,
        unit: str = "step",
        resume_keys: Iterable[str] = (),
        notes: dict[str, Any] | None = None,
        players: tuple[int, ...] = (2,),
    ) -> None:
        if not dataclasses.is_dataclass(config) or not isinstance(config, RunConfig):
            raise TypeError(f"a training config must extend RunConfig, not {type(config).__name__}")
        self.config = config
        self.method = method
        self.format = format
        self.total = total
        self.unit = unit
        self.resume_keys = tuple(resume_keys)
        self.notes = dict(notes or {})
        self.game = game_from_config(config)
        if self.game.num_players not in players:
            raise BoardgymError(
                f"{method} trains {' or '.join(_WORDS.get(n, str(n)) for n in players)}-player games; {self.game.name} has "
                f"{self.game.num_players} player(s): pick another --game (boardgym list games)"
            )
        self.run_folder = RunFolder.named(config.root, self.game.name, method, config.run_name, seed=config.seed)
        self.folder = self.run_folder.path
        self.step = 0
        self.games = 0
        """Training games played so far (``progress/games``): each method adds its games."""
        self.resumed: dict[str, Any] | None = None
        self.writer: Any = None
        self.bar: Any = None
        self._stack = ExitStack()
        self._opponents: dict[str, Agent | str] | None = None
        self.metrics: dict[str, float] = {}
        """The latest value of every scalar ``measure`` logged."""

    @property
    def checkpoint_path(self) -> Path:
        return self.folder / CHECKPOINT

    @property
    def final_path(self) -> Path:
        return self.folder / FINAL

    # -- life cycle -----------------------------------------------------------------------------
    def __enter__(self) -> TrainingRun:
        self.open()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        self.close(error)

    def open(self) -> None:
        """Lock the folder, check it (resume or fresh), write config.json, start the writer
        and the progress bar. On any failure everything opened so far is closed again."""
        try:
            self._open()
        except BaseException as error:
            self.close(error)
            raise

    def _open(self) -> None:
        config = self.config
        self.run_folder.open(resume=config.resume, holds=CHECKPOINT, what="run")
        self.folder = folder = self.run_folder.path  # a default name is final once open
        if config.resume:
            self.resumed = load_checkpoint(
                self.checkpoint_path,
                format=self.format,
                game=self.game,
                required=self.resume_keys,
                method=self.method,
            )
            with self.restoring():
                self.step = _resumed_step(self.resumed)
                self.games = _resumed_games(self.resumed)
        write_config(folder / "config.json", config, method=self.method, **self.notes)
        self.writer = make_writer(folder)
        self._stack.callback(self.writer.close)
        log_config_table(self.writer, config)
        log_session_start(self.writer, config, {**self.notes, "method": self.method, "game": self.game.name}, self.step)
        bar = progress_bar(
            config.progress,
            total=self.total,
            initial=min(self.step, self.total),
            unit=self.unit,
            desc=f"{self.method} {self.game.name}",
            dynamic_ncols=True,
        )
        if bar.disable:
            bar.close()
        else:
            self.bar = bar
            self._stack.callback(bar.close)

    def restoring(self) -> AbstractContextManager[None]:
        """Wrap the code that rebuilds the method's state from ``run.resumed``: content that
        does not fit (a wrong type, a wrong shape, weights of another architecture) becomes one
        sentence naming ``checkpoint.pt`` (``boardgym.checkpoints.checkpoint_content``)."""
        return checkpoint_content(self.checkpoint_path, method=self.method, game=self.game)

    def on_close(self, callback: Callable[[], Any]) -> None:
        """Call ``callback`` when the run closes (worker pools, envs ...), last in, first out."""
        self._stack.callback(callback)

    def close(self, error: BaseException | None = None) -> None:
        """Close what the run opened; a fresh run refused for bad input before its first
        checkpoint leaves an empty folder (``RunFolder.close``)."""
        if isinstance(error, RayLost) and not error.resume:
            error.resume = (
                f"continue from the last checkpoint with the same command and --run-name {self.folder.name} --resume"
                if self.checkpoint_path.is_file()
                else "nothing was saved yet: start the same command again"
            )
        try:
            self._stack.close()
        finally:
            self.run_folder.close(error)

    # -- progress, scalars and messages -----------------------------------------------------------
    def advance(self, count: int = 1, **postfix: Any) -> None:
        """``count`` more steps done; ``postfix`` shows on the progress bar."""
        self.advance_to(self.step + count, **postfix)

    def advance_to(self, step: int, **postfix: Any) -> None:
        """The step counter is now ``step`` (for loops whose library counts, e.g. SB3)."""
        if self.bar is not None:
            if step > self.bar.total:  # a library that rounds the budget up (SB3's whole rollouts)
                self.bar.total = step
            self.bar.update(max(0, step - self.bar.n))
            if postfix:
                self.bar.set_postfix(postfix, refresh=False)
        self.step = step

    def log(self, scalars: dict[str, float], step: int | None = None) -> None:
        """TensorBoard scalars at ``step`` (default: the run's step), with the common count
        ``progress/games`` beside them."""
        step = self.step if step is None else step
        for tag, value in {**scalars, GAMES_TAG: self.games}.items():
            self.writer.add_scalar(tag, value, step)

    def report(self, line: str) -> None:
        """A line for the person watching, above the progress bar."""
        if self.bar is not None:
            self.bar.write(line)
        else:
            print(line)

    def due(self, every: int, step: int | None = None) -> bool:
        """Whether a task done every ``every`` steps (0: never) falls on ``step``."""
        step = self.step if step is None else step
        return every > 0 and step > 0 and step % every == 0

    # -- measurement during training ------------------------------------------------------------
    @property
    def opponents(self) -> dict[str, Agent | str]:
        """``random`` and the game's baseline, built once."""
        if self._opponents is None:
            self._opponents = default_opponents(self.game)
        return self._opponents

    def measure(
        self,
        agent: Agent,
        opponents: dict[str, Agent | str] | None = None,
        *,
        extra: dict[str, float] | None = None,
        note: str = "",
        seed: int | None = None,
    ) -> dict[str, float]:
        """Play ``eval_games`` games against each opponent (default: ``self.opponents``), log the
        ``eval/`` scalars (and ``extra``) at the current step, report a line; returns them all."""
        opponents = self.opponents if opponents is None else opponents
        seed = self.config.seed if seed is None else seed
        scalars = measure_against(self.game, agent, opponents, self.config.eval_games, seed)
        rate = mistake_rate(self.game, agent, sample=GRADE_SAMPLE, seed=seed, cheap_only=True)
        if rate is not None:
            scalars["eval/mistake_rate"] = rate
        scalars.update(extra or {})
        self.log(scalars)
        self.metrics.update(scalars)
        if self.writer is not None:
            self.writer.flush()
        results = ", ".join(
            f"vs {name} {scalars[f'eval/win_rate_vs_{name}']:.0%} won {scalars[f'eval/loss_rate_vs_{name}']:.0%} lost"
            for name in opponents
        )
        if rate is not None:
            results += f", {rate:.0%} mistakes"
        self.report(f"{self.unit} {self.step}: {results}" + (f"; {note}" if note else ""))
        return scalars

    # -- checkpoints ------------------------------------------------------------------------------
    def save(self, payload: dict[str, Any], path: Path | None = None) -> Path:
        """Write ``payload`` (stamped with the method, the config, the step, the format and the
        game) atomically to ``checkpoint.pt`` or ``path``."""
        stamped = {
            **payload,
            "method": self.method,
            "step": int(self.step),
            "games": int(self.games),
            "config": json.dumps(config_to_dict(self.config)),
        }
        written = save_checkpoint(path or self.checkpoint_path, stamped, format=self.format, game=self.game)
        self.run_folder.keep()
        return written

    def finish(self, payload: dict[str, Any]) -> Path:
        """Write ``final.pt``, the file ``make_agent`` loads, and end the HParams session as a
        success; returns its path. (A run that stops before, failed or interrupted, writes no
        end: TensorBoard keeps the first of each, so a ``--resume`` that finishes it is the
        session's one end.)"""
        path = self.save(payload, self.final_path)
        if self.writer is not None:
            self.writer.add_scalar(GAMES_TAG, self.games, self.step)
            log_session_end(self.writer, "success", self.step)
        return path


# -- the command line ---------------------------------------------------------------------------
def run_main(config_cls: type[C], train: Callable[[C], Path], argv: list[str] | None, prog: str, method: str) -> int:
    """``main`` of a training module: parse ``argv`` into ``config_cls``, train, and say which
    agent spec plays the result; a ``BoardgymError`` is one line on stderr and exit status 2."""
    from boardgym.train import METHODS

    agent = METHODS[method].agent
    try:
        config = options_from_argv(config_cls, argv, prog)
        path = train(config)
    except BoardgymError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a run folder we may not write, a full disk...
        print(f"{prog}: error: {os_error_sentence(error)}", file=sys.stderr)
        return 2
    print(f"final checkpoint: {path}\nplay it: {agent}:checkpoint={path}")
    print(f"charts: tensorboard --logdir {shlex.quote(config.root)}")
    return 0


def _resumed_games(payload: dict[str, Any]) -> int:
    """The games count of a checkpoint (0 in those written before it was kept)."""
    games = payload.get("games", 0)
    if getattr(games, "shape", None) == ():
        games = int(games)
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise ValueError(f"its games {games!r} is not a count")
    return games


def _resumed_step(payload: dict[str, Any]) -> int:
    for key in ("step", *_OLD_STEP_KEYS):
        if key in payload:
            step = payload[key]
            if getattr(step, "shape", None) == () and not getattr(step, "is_floating_point", lambda: True)():
                step = int(step)  # a 0-d integer tensor, as some older checkpoints hold
            if isinstance(step, bool) or not isinstance(step, int) or step < 0:
                raise ValueError(f"its {key} {step!r} is not a count")
            return step
    return 0
