"""AlphaZero self-play speed here and on Ray, and the cluster cost model (``boardgym bench selfplay``)."""

import sys

from boardgym.bench.selfplay_speed import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="python benchmarks/selfplay_speed.py"))
