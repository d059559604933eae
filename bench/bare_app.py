"""The ceiling bench/api.py measures the API against: a bare Flask app doing one Redis XADD per
request, served by gunicorn with the same settings as the API.

    REDIS_URL=redis://... gunicorn --chdir bench 'bare_app:create_app()'

It parses the same JSON body a move submission carries and answers JSON, but loads nothing,
checks nothing and decides nothing. It imports nothing from the project.
"""
from __future__ import annotations

import json
import os

import flask
import redis

# Not a benchmark of its own (a helper of the others): `make soak` only imports it (tests/test_bench.py).
QUICK_ARGS = None


def create_app() -> flask.Flask:
    app = flask.Flask("bare")
    client = redis.Redis.from_url(os.environ["REDIS_URL"], socket_timeout=5)

    @app.post("/bare/<string:stream>")
    def xadd(stream: str):
        body = flask.request.get_json(force=True)
        entry = client.xadd(f"bare:{{{stream}}}", {"e": json.dumps(body)})
        return {"id": entry.decode()}

    return app
