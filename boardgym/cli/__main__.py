"""``python -m boardgym.cli``: the ``boardgym`` command."""

import sys

from boardgym.cli import main

sys.exit(main())
