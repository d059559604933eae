"""How gunicorn serves the API, in one place: ``tablepost serve`` (api/cli.py) loads these settings,
and the Docker image runs ``gunicorn --config python:api.gunicorn_conf ...`` (the Dockerfile);
each adds only where to listen and how many processes and threads.

* **The worker**: gunicorn's ``gevent`` worker (``TABLEPOST_WORKER``, default ``gevent``;
  :class:`GeventWorker`): a connection is a greenlet, so clients that trickle their headers or
  bodies hold no thread and cost the others nothing (docs/deploy.md, "Slow clients", with the
  measurements of bench/slow_clients.py). Under the threaded worker (``gthread``, still
  available: :class:`ThreadWorker`) 200 such clients left a plain GET unanswered. Every
  connection's socket gets a timeout of ``TABLEPOST_CLIENT_TIMEOUT`` seconds (default 10): a read
  (or a write: a client that stopped reading an event stream) that waits longer gives up: the
  app answers 408 ``request-timeout`` and the connection closes (api/app.py); stalled headers
  close the connection (one line in the log, no traceback). The app is imported in each worker
  after gevent patched the standard library (the package ``api`` imports it lazily).
* **Errors of the server layer as problem+json**: a request gunicorn refuses before the app sees
  it (a malformed request line or header: 400; a URL over its limit: 414; headers over theirs:
  431; an unsupported transfer coding: 501...) is answered ``application/problem+json`` with a
  stable ``code`` and words, like every error of the app, instead of gunicorn's HTML page (which
  echoes the request's own bytes). gunicorn writes those answers with one function,
  ``gunicorn.util.write_error``, and has no setting for it: :func:`write_problem` replaces it.
* **The access log** (stdout): ``address "request line" status bytes duration``, where a query
  string that carries a secret (a parameter whose name holds ``token``, ``key``, ``secret`` or
  ``sig``, as email links do) is replaced by ``[redacted]``, and the Authorization and Cookie
  headers never appear, whatever ``access_log_format`` says. Tokens belong in headers, but a
  client may put one in a URL all the same.

Module-level names that are gunicorn settings are read as such (gunicorn's config file
semantics), so nothing else here may be named like one (``timeout``, ``user``, ...).
"""
from __future__ import annotations

import json
import os
import re
import sys
import warnings
from urllib.parse import unquote_plus

from gunicorn import util
from gunicorn.glogging import Logger
from gunicorn.workers import ggevent, gthread
from gunicorn.workers.base_async import AsyncWorker

# TABLEPOST_WORKER: gevent (the default) or gthread (the threaded worker, as before issue 39)
WORKER_CLASSES = {"gevent": "api.gunicorn_conf.GeventWorker", "gthread": "api.gunicorn_conf.ThreadWorker"}
WORKER = os.environ.get("TABLEPOST_WORKER", "gevent")
if WORKER not in WORKER_CLASSES:
    raise SystemExit(f"TABLEPOST_WORKER must be one of {', '.join(WORKER_CLASSES)}, not {WORKER!r}")
worker_class = WORKER_CLASSES[WORKER]
worker_connections = int(os.environ.get("TABLEPOST_WORKER_CONNECTIONS", "1000"))
logger_class = "api.gunicorn_conf.ServiceLogger"
accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
graceful_timeout = 10

CLIENT_TIMEOUT = float(os.environ.get("TABLEPOST_CLIENT_TIMEOUT", "10"))

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


# What a refusal of the server layer says (gunicorn.workers.base.Worker.handle_error's statuses).
SERVER_PROBLEMS = {
    400: ("bad-request", "the request could not be read: a malformed request line or header"),
    403: ("forbidden", "the request was refused"),
    414: ("uri-too-long", "the request's address (URL) is too long"),
    417: ("expectation-failed", "the server cannot meet the request's Expect header"),
    431: ("headers-too-large", "the request's headers are too many or too large"),
    500: ("internal-error", "the server failed; the request changed nothing"),
    501: ("not-implemented", "the request's transfer coding is not supported"),
}


def write_problem(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, answering problem+json (see the module docstring). The
    request's own bytes (in ``mesg``) are not echoed: the access log has the status."""
    from .problems import PROBLEM_CONTENT_TYPE, problem_body   # in the worker: after gevent's patching
    code, detail = SERVER_PROBLEMS.get(status_int, ("bad-request", "the request could not be read"))
    body = json.dumps(problem_body(status_int, code, reason, detail)).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: {PROBLEM_CONTENT_TYPE}\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


util.write_error = write_problem


class GeventWorker(ggevent.GeventWorker):
    """gunicorn's gevent worker (see the module docstring): one greenlet per connection, so a client
    that trickles its headers or body holds a greenlet, not a thread. Every connection's socket
    gets the client timeout too (a read or write that waits longer gives up, as in
    :class:`ThreadWorker`), and event streams end as soon as a graceful stop begins."""

    def init_process(self):
        loaded = [m for m in ("api.app", "api.hints", "api.resources.stream") if m in sys.modules]
        if loaded:   # their locks would be real locks shared by greenlets: a deadlock waiting to happen
            raise RuntimeError(f"the app was imported before gevent patched the standard library: {loaded}")
        super().init_process()

    def patch(self):
        # gevent warns that ssl was imported before its patching (gunicorn's master imports it, and
        # redis-py with it) and names the modules that imported names from ssl directly: only
        # redis.asyncio, which the service never uses. Any other such module is warned about.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            super().patch()
        for w in caught:
            direct = re.search(r"NOT patched\): \[(.*?)\]", str(w.message))
            names = re.findall(r"'([\w.]+) \(", direct.group(1)) if direct else None
            if names is None or set(names) - {"redis.asyncio.connection"}:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

    def handle_exit(self, sig, frame):
        super().handle_exit(sig, frame)
        stream = sys.modules.get("api.resources.stream")
        if stream is not None:
            stream.SERVER_STOPPING.set()

    def handle(self, listener, client, addr):
        client.setblocking(1)                 # as the parent's handle(), then the timeout
        client.settimeout(CLIENT_TIMEOUT)
        AsyncWorker.handle(self, listener, client, addr)


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
            self.info("closed a connection: the client stalled for %g s (TABLEPOST_CLIENT_TIMEOUT)",
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
