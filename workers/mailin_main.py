"""``python -m workers.mailin_main --port P``: the inbound SMTP listener as its own process
(started by ``tablepost serve``; its own service in docker-compose)."""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from mail.mailin_runtime import inbound_deps

from . import runtime
from .listener import start_listener


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m workers.mailin_main", description="Receive replies by SMTP.")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8025)
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    controller = start_listener(inbound_deps(runtime.service()), host=a.host, port=a.port)
    print(f"mailin: listening for replies on {a.host}:{a.port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
