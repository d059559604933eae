"""Polling for the turns of the games' own automata (``python -m seats``, ``python -m cardinalbot``):
list the due turns with the bot credential and play each with its game's declared policy."""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from .client import ApiClient, ApiError, RateLimited
from .runner import play_automa_turn


def main(argv: list[str] | None = None, prog: str = "python -m seats") -> int:
    ap = argparse.ArgumentParser(prog=prog,
                                 description="Play the turns of the games' own automata by polling.")
    ap.add_argument("--api", default=os.environ.get("TABLEPOST_API_URL", "http://127.0.0.1:8000"))
    ap.add_argument("--token", default=os.environ.get("TABLEPOST_BOT_TOKEN"), help="the bot credential")
    ap.add_argument("--interval", type=float, default=5.0, help="seconds between polls (default 5)")
    ap.add_argument("--once", action="store_true", help="play what is due now, then exit")
    a = ap.parse_args(argv)
    if not a.token:
        print("a bot credential is needed: --token or TABLEPOST_BOT_TOKEN", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    client = ApiClient(a.api, a.token)
    while True:
        try:
            for turn in client.due_turns():
                try:
                    play_automa_turn(client, turn["game_id"], turn["seat"], turn["version"])
                except RateLimited as e:  # this game's budget is spent: the others go on
                    logging.warning("game %s throttled for %.0fs; next poll", turn["game_id"], e.retry_after)
        except ApiError as e:
            logging.error("polling failed: %s", e)
            if a.once:
                return 1
        if a.once:
            return 0
        time.sleep(a.interval)

