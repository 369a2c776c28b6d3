"""Random-play speed of our envs and rules against PettingZoo and OpenSpiel (``boardgym bench envs``)."""

import sys

from boardgym.bench.env_speed import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="python benchmarks/env_speed.py"))
