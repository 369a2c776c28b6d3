"""The Connect Four solver on Pons's test sets (``boardgym bench solver``)."""

import sys

from boardgym.bench.solver_speed import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="python benchmarks/solver_speed.py"))
