"""``python -m committee``: the same entry point as the ``committee`` script."""

import sys

from committee.cli import main

sys.exit(main())
