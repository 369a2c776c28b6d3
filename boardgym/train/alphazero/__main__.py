"""``python -m boardgym.train.alphazero --game GAME [options]``: the same as ``boardgym train alphazero``."""

import sys

from boardgym.train.alphazero.loop import main

if __name__ == "__main__":  # not in the processes that spawn starts, which import this module as __mp_main__
    sys.exit(main())
