"""`python -m helpers.clase empaquetar` (what `make pack` runs) and `python -m helpers.clase demo`."""

import sys

from .cli import main

sys.exit(main())
