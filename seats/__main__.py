"""``python -m seats``: host every game's own automa against any Table Post server by polling.

    python -m seats --api https://pbem.example --token $TABLEPOST_BOT_TOKEN [--interval 5] [--once]
"""
from __future__ import annotations

import sys

from .poll import main

if __name__ == "__main__":
    sys.exit(main())
