"""Search agents against a reference agent over many games (win rate and time per game)."""

import sys

from boardgym.bench.search_strength import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="python benchmarks/search_strength.py"))
