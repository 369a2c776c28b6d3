"""``boardgym evaluate``, ``boardgym ladder`` and ``boardgym grade``: their options and what runs
them. Each writes one run folder (``runs.RunFolder``): ``<root>/<game>/evaluate|ladder|grade/<run-name>/``."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from boardgym.agents.registry import read_spec
from boardgym.cli.play import GameOptions
from boardgym.cluster import RayLost, check_address
from boardgym.config import REQUIRED, option, progress_option, seed_option
from boardgym.evaluate.openings import OPENING_MODES
from boardgym.evaluate.tournament import BACKENDS, SETTINGS_FILE, TournamentSettings
from boardgym.runs import RUNS_ROOT, RunFolder, check_run_name
from boardgym.types import BoardgymError

RUN_NAME_HELP = "folder name under <root>/<game>/{}/ (default: s<seed>-<date>-<time>)"
ROOT_HELP = "the runs root the run folder goes under"


@dataclass(frozen=True)
class FolderOptions(GameOptions):
    """A game and the run folder a command writes for it."""

    seed: int = seed_option(0, "seed of every game (each game's seeds derive from it)")
    run_name: str | None = option(None, RUN_NAME_HELP.format("COMMAND"))
    root: str = option(str(RUNS_ROOT), ROOT_HELP)

    def check(self) -> None:
        super().check()
        if self.run_name is not None:
            check_run_name(self.run_name)


@dataclass(frozen=True)
class EvaluateOptions(FolderOptions):
    """Round robin (or gauntlet) between agent specs, seats alternated."""

    agents: tuple[str, ...] = option(
        REQUIRED, 'agent specs, e.g. random perfect "mcts:simulations=200"', many=True, required=True
    )
    games: int = option(100, "games per pairing (per agent for puzzles)", minimum=1, hint="e.g. --games 100")
    workers: int | None = option(
        None,
        "worker processes (default: CPU cores, at most 8); with --backend ray and no --address, the CPUs of the "
        "Ray started here",
        minimum=1,
    )
    backend: str = option(
        "local",
        "where games are played: " + "; ".join(f"{k}: {v}" for k, v in BACKENDS.items()),
        choices=tuple(BACKENDS),
    )
    address: str | None = option(
        None,
        "with --backend ray: the cluster (auto, HOST:PORT of the head, ray://HOST:10001); default: $RAY_ADDRESS, "
        "else a Ray started on this machine (docs/cluster.md)",
        metavar="ADDR",
    )
    run_name: str | None = option(None, RUN_NAME_HELP.format("evaluate"))
    resume: bool = option(False, "finish (or, with more --games, extend) the run named by --run-name, or the newest")
    gauntlet: bool = option(False, "only the first agent plays each of the others")
    openings: str = option(
        "auto",
        "opening suite: each pair of games (seats swapped) starts after the same random opening moves; auto: on "
        "when an agent plays the same moves whatever its seed",
        choices=OPENING_MODES,
    )
    opening_plies: int | None = option(
        None,
        "moves in each opening (default: the fewest with at least 1000 different openings); given, it turns the "
        "suite on under --openings auto",
        minimum=0,
        metavar="N",
    )
    plots: bool = option(True, "draw the png plots")
    progress: bool = progress_option()
    save_games: int = option(
        0,
        "keep each move's time for the first N games and write them to games/game-INDEX.json (watch one with "
        "boardgym replay)",
        minimum=0,
        metavar="N",
    )

    batch_games: int = option(
        64,
        "games of a pairing played together where an agent searches in batches (alphazero:search=batched): one "
        "search, one network call a simulation, for all of them; 1: each game on its own (the same games either way)",
        minimum=1,
        metavar="N",
    )

    def check(self) -> None:
        super().check()
        for spec in self.agents:
            read_spec(spec)
        if self.backend == "ray":
            check_address(self.address)
        elif self.address is not None:
            raise BoardgymError(f"--address {self.address!r} is for --backend ray; drop it or add --backend ray")

    def tournament(self) -> TournamentSettings:
        """The tournament these options ask for."""
        return TournamentSettings(
            self.game,
            self.agents,
            self.games,
            workers=self.workers if self.workers is not None else min(os.cpu_count() or 1, 8),
            seed=self.seed,
            game_params=self.game_params,
            gauntlet=self.gauntlet,
            backend=self.backend,
            address=self.address,
            save_games=self.save_games,
            openings=self.openings,
            opening_plies=self.opening_plies,
            progress=self.progress,
            batch_games=self.batch_games,
        )


def evaluate(options: EvaluateOptions) -> int:
    from boardgym.evaluate.analysis import analyse
    from boardgym.evaluate.report import console_summary, write_report
    from boardgym.evaluate.tournament import run_tournament_with

    folder = RunFolder.named(
        options.root,
        options.game,
        "evaluate",
        options.run_name,
        seed=options.seed,
        resume=options.resume,
        holds=SETTINGS_FILE,
    )
    try:
        tournament = run_tournament_with(options.tournament(), folder, resume=options.resume)
    except RayLost as error:
        if not error.resume:
            error.resume = (
                f"the finished games are kept in {folder.path}/results.jsonl: finish them with the same command and "
                f"--run-name {folder.path.name} --resume"
            )
        raise
    except KeyboardInterrupt:
        out_dir = folder.path
        print(f"\ninterrupted; the finished games are in {out_dir}/results.jsonl", file=sys.stderr)
        print(f"finish them with the same command and: --run-name {out_dir.name} --resume", file=sys.stderr)
        return 130
    except Exception:
        out_dir = folder.path
        if (out_dir / "results.jsonl").is_file() and (out_dir / "results.jsonl").stat().st_size:
            print(f"the games finished before the error are kept in {out_dir}/results.jsonl", file=sys.stderr)
        raise
    out_dir = folder.path  # final once open: a default name another run took became the next free one
    analysis = analyse(tournament) if tournament.num_players == 2 and tournament.games else None
    files = write_report(tournament, out_dir, plots=options.plots, analysis=analysis)
    print(console_summary(tournament, analysis))
    warning = tournament.repeats_warning()
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"\n{len(tournament.games)} games; report, results and plots in {out_dir}/:")
    print("  " + "  ".join(path.name for path in files))
    return 0


@dataclass(frozen=True)
class LadderOptions(FolderOptions):
    """The reference ladder of a two-player game: its built-in agents rated against each other."""

    games: int = option(20, "games per pairing, seats alternated", minimum=1)
    workers: int = option(1, "worker processes", minimum=1)
    run_name: str | None = option(None, "folder name under <root>/<game>/ladder/ (default: s<seed>)")
    resume: bool = option(False, "finish or extend (more --games) the run --run-name")
    grade_sample: int = option(
        0,
        "grade each rung on N positions of the game's graded set (every k-th; 0: the whole set)",
        minimum=0,
        metavar="N",
    )
    plots: bool = option(True, "draw the png plots")
    progress: bool = progress_option()

    def check(self) -> None:
        from boardgym.evaluate.ladder import ladder_of

        ladder_of(self.game)
        super().check()


def ladder(options: LadderOptions) -> int:
    from boardgym.evaluate.ladder import ladder_markdown, run_ladder, set_grader

    folder = RunFolder.named(
        options.root, options.game, "ladder", options.run_name, seed=options.seed, default_name=f"s{options.seed}"
    )
    result = run_ladder(
        options.game,
        options.games,
        workers=options.workers,
        seed=options.seed,
        out_dir=folder.path,
        resume=options.resume,
        grader=set_grader(options.game, options.grade_sample, options.seed),
        plots=options.plots,
        progress=options.progress,
    )
    print(ladder_markdown(result))
    print(f"\n{len(result.tournament.games)} games ({options.games} per pairing); ladder and report in {folder.path}/")
    return 0


@dataclass(frozen=True)
class GradeOptions(FolderOptions):
    """Mistake rate of an agent on a fixed set of solved positions."""

    agent: str = option(REQUIRED, "the agent to grade, e.g. mcts:simulations=800", metavar="SPEC", required=True)
    seed: int = seed_option(0, "the agent's seed")
    positions: Path | None = option(
        None,
        "connect_four only: grade on this set file instead of the shipped one (same format, e.g. a held-out set "
        "written by boardgym.evaluate.grade_sets.build_connect_four_set, for choosing between checkpoints without "
        "tuning to the shipped set)",
        metavar="FILE",
    )
    run_name: str | None = option(None, RUN_NAME_HELP.format("grade"))

    def check(self) -> None:
        super().check()
        read_spec(self.agent)
        if self.positions is not None and self.game != "connect_four":
            raise BoardgymError(
                f"--positions is for connect_four (the set files hold Connect Four moves); {self.game}'s set is built "
                "from its rules: drop --positions"
            )
        if self.positions is None:
            from boardgym.evaluate.grade import require_grading_set

            require_grading_set(self.make_game())


def grade(options: GradeOptions) -> int:
    from boardgym.evaluate.grade import grade as grade_agent
    from boardgym.evaluate.grade import markdown, write_grade
    from boardgym.evaluate.grade_sets import read_connect_four_set

    game = options.make_game()
    positions = read_connect_four_set(options.positions) if options.positions is not None else None
    name = str(options.positions) if options.positions is not None else None
    folder = RunFolder.named(options.root, game.name, "grade", options.run_name, seed=options.seed)
    with folder.open(what="grade", resumable=False):
        result = grade_agent(game, options.agent, seed=options.seed, positions=positions, positions_name=name)
        write_grade(result, folder.path)
    print(markdown(result), end="")
    print(f"written to {folder.path}")
    return 0
