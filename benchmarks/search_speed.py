"""MCTS and alpha-beta speed against OpenSpiel (``boardgym bench search``)."""

import sys

from boardgym.bench.search_speed import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="python benchmarks/search_speed.py"))
