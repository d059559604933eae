"""``python -m cardinalbot``: host the Cardinalbot (and any game's automa) against any Table Post
server by polling; the same as ``python -m seats`` (seats/poll.py).

    python -m cardinalbot --api https://pbem.example --token $TABLEPOST_BOT_TOKEN [--interval 5] [--once]
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from seats.poll import main as poll
    return poll(argv, prog="python -m cardinalbot")


if __name__ == "__main__":
    sys.exit(main())
