"""How gunicorn serves the API, in one place: ``tiletum serve`` (api/cli.py) loads these settings,
and the Docker image runs ``gunicorn --config python:api.gunicorn_conf ...`` (the Dockerfile);
each adds only where to listen and how many processes and threads.

* **The worker**: gunicorn's ``gthread``, except that every connection's socket gets a timeout
  of ``TILETUM_CLIENT_TIMEOUT`` seconds (default 10) while a thread serves it. gthread hands a
  connection to a thread as soon as its first bytes arrive and then reads the headers and the
  body blocking, with no timeout: 40 clients that each send 10 of the 100 body bytes they
  announce held 32 threads for good. Now a read (or a write: a client that stopped reading an
  event stream) that waits longer gives up: the app answers 408 ``request-timeout`` and the
  connection closes (api/app.py); stalled headers close the connection (one line in the log,
  no traceback); either way the thread is free. A client that trickles a byte just
  within each timeout still holds a thread as long as it likes: the reverse proxy in front, which
  buffers whole requests before it passes them on, is what stops those (docs/deploy.md, "Slow
  clients").
* **The access log** (stdout): ``address "request line" status bytes duration``, where a query
  string that carries a secret (a parameter whose name holds ``token``, ``key``, ``secret`` or
  ``sig``, as email links do) is replaced by ``[redacted]``, and the Authorization and Cookie
  headers never appear, whatever ``access_log_format`` says. Tokens belong in headers, but a
  client may put one in a URL all the same.

Module-level names that are gunicorn settings are read as such (gunicorn's config file
semantics), so nothing else here may be named like one (``timeout``, ``user``, ...).
"""
from __future__ import annotations

import os
import re
import sys
from urllib.parse import unquote_plus

from gunicorn.glogging import Logger
from gunicorn.workers import gthread

worker_class = "api.gunicorn_conf.ThreadWorker"
logger_class = "api.gunicorn_conf.ServiceLogger"
accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
graceful_timeout = 10

CLIENT_TIMEOUT = float(os.environ.get("TILETUM_CLIENT_TIMEOUT", "10"))

_SECRET_PARAM = re.compile(r"token|key|secret|sig", re.IGNORECASE)
_SECRET_HEADER = re.compile(r"authorization|cookie", re.IGNORECASE)
REDACTED = "[redacted]"


class ThreadWorker(gthread.ThreadWorker):
    """gthread with a socket timeout on each connection while a thread serves it (see above), whose
    event streams end as soon as it begins a graceful stop (SIGTERM): it finishes its requests
    within ``graceful_timeout`` instead of being killed with a stream still open."""

    def handle_exit(self, sig, frame):
        super().handle_exit(sig, frame)
        stream = sys.modules.get("api.resources.stream")  # loaded with the app; no import in a handler
        if stream is not None:
            stream.SERVER_STOPPING.set()

    def handle(self, conn):
        # The parent's handle() makes the socket blocking (which clears any timeout), then calls
        # conn.init() (which wraps it in TLS the first time): the timeout goes on after that.
        if "init" not in vars(conn):
            init = conn.init

            def init_with_timeout():
                init()
                conn.sock.settimeout(CLIENT_TIMEOUT)
            conn.init = init_with_timeout
        return super().handle(conn)


def redact_query(query: str) -> str:
    """The query string, or ``[redacted]`` when it carries a secret (any encoding of its names)."""
    return REDACTED if query and _SECRET_PARAM.search(unquote_plus(query)) else query


def redact_url(url: str) -> str:
    """A request target or URL with its query string redacted (:func:`redact_query`)."""
    path, sep, query = url.partition("?")
    return path + sep + redact_query(query) if sep else url


def redact_request_line(line: str) -> str:
    """``METHOD target PROTOCOL`` with the target's query string redacted."""
    method, _, rest = line.partition(" ")
    target, space, protocol = rest.rpartition(" ")
    if not space:  # no protocol (HTTP/0.9 style)
        target, protocol = rest, ""
    return f"{method} {redact_url(target)}{space}{protocol}"


class ServiceLogger(Logger):
    """gunicorn's logger, with no secret in any access log atom (see above), and one line instead
    of a traceback for each client the worker gave up on."""

    def exception(self, msg, *args, **kwargs):
        if isinstance(sys.exc_info()[1], TimeoutError):  # the client timeout (ThreadWorker)
            self.info("closed a connection: the client stalled for %g s (TILETUM_CLIENT_TIMEOUT)",
                      CLIENT_TIMEOUT)
            return
        super().exception(msg, *args, **kwargs)

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        if isinstance(atoms.get("r"), str):
            atoms["r"] = redact_request_line(atoms["r"])
        for name in ("f", "{referer}i", "{raw_uri}e", "{http_referer}e"):
            if isinstance(atoms.get(name), str):
                atoms[name] = redact_url(atoms[name])
        for name in ("q", "{query_string}e"):
            if isinstance(atoms.get(name), str):
                atoms[name] = redact_query(atoms[name])
        for name in atoms:
            if name.startswith("{") and _SECRET_HEADER.search(name):
                atoms[name] = REDACTED
        return atoms
