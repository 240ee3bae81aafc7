"""`python -m helpers.course` (what `make course` runs)."""

import contextlib
import sys

from .runner import main

with contextlib.suppress(KeyboardInterrupt):
    sys.exit(main())
sys.exit(130)
