"""The service's other parts as the API sees them, for ``GET /health``: the Celery workers
(answering a broadcast ``ping`` over the broker, by name), the inbound SMTP listener (answering
its greeting) and the scheduler (Celery beat: its sweeps' heartbeat in Redis,
application/heartbeat.py). Which parts a deployment has is configuration: ``tablepost serve`` sets
``TABLEPOST_HEALTH_WORKERS`` (worker name prefixes, e.g. ``email,sweeps,seats,stand-in,hints,reviews``),
``TABLEPOST_HEALTH_MAILIN`` (``host:port``) and ``TABLEPOST_HEALTH_SCHEDULER=1``; an API on its own
checks only its Redis. Outbound SMTP (``smtp``: ``ok`` or ``failing``, mail/outbox.py) is read
from the outbox in Redis by every deployment."""
from __future__ import annotations

import smtplib
import threading
import time
from typing import Any

from application import heartbeat
from mail.outbox import smtp_state

PING_TIMEOUT = 1.0
CACHE_SECONDS = 5.0  # /health may be polled often: one broadcast ping per process per few seconds


class Parts:
    """``redis``: the store's client (the heartbeat and the outbox); ``scheduler``: whether this
    deployment has a scheduler to report, ``down`` when no sweep ran for 3 of its intervals, or
    ``starting`` within ``scheduler_grace`` seconds of this process's start; ``smtp_after``: how
    long delivery must have failed before SMTP is ``failing``."""

    def __init__(self, broker_url: str | None, workers: list[str], mailin: str | None, redis=None,
                 scheduler: bool = False, scheduler_grace: float = 90.0, smtp_after: float = 300.0):
        self.broker_url, self.workers, self.mailin = broker_url, workers, mailin
        self.redis, self.scheduler, self.scheduler_grace = redis, scheduler, scheduler_grace
        self.smtp_after = smtp_after
        self.started = time.time()
        self._lock = threading.Lock()
        self._cached: tuple[float, dict, str] | None = None
        self._celery: Any = None   # a celery.Celery, made at the first ping (celery has no type information)

    def check(self) -> dict[str, str]:
        """``{"worker:email": "ok" | "down", ..., "mailin": "ok" | "down", "scheduler": "ok" |
        "starting" | "down"}``."""
        return self._check()[0]

    def smtp(self) -> str:
        """Outbound SMTP: ``ok`` or ``failing``."""
        return self._check()[1]

    def _check(self) -> tuple[dict[str, str], str]:
        with self._lock:
            if self._cached is not None and time.monotonic() - self._cached[0] < CACHE_SECONDS:
                return dict(self._cached[1]), self._cached[2]
            out = {}
            if self.workers:
                answered = self._ping()
                for name in self.workers:
                    out[f"worker:{name}"] = ("ok" if any(h.startswith(name + "@") for h in answered)
                                             else "down")
            if self.mailin:
                out["mailin"] = "ok" if self._smtp_answers(self.mailin) else "down"
            if self.scheduler:
                try:
                    out["scheduler"] = heartbeat.state(self.redis, self.started, self.scheduler_grace)
                except Exception:  # Redis went away since /health pinged it: nothing is known to run
                    out["scheduler"] = "down"
            try:
                smtp = smtp_state(self.redis, self.smtp_after) if self.redis is not None else "ok"
            except Exception:  # the same: /health reports Redis itself
                smtp = "ok"
            self._cached = (time.monotonic(), out, smtp)
            return dict(out), smtp

    def _ping(self) -> set[str]:
        try:
            if self._celery is None:
                from celery import Celery
                self._celery = Celery("tablepost-health", broker=self.broker_url)
                self._celery.conf.broker_connection_retry_on_startup = False
            replies = self._celery.control.ping(timeout=PING_TIMEOUT) or []
            return {host for reply in replies for host in reply}
        except Exception:  # the broker is down: so is every worker, as far as we can tell
            return set()

    def _smtp_answers(self, mailin: str) -> bool:
        host, _, port = mailin.rpartition(":")
        try:
            with smtplib.SMTP(host or "127.0.0.1", int(port), timeout=2) as s:
                return s.noop()[0] == 250
        except (OSError, smtplib.SMTPException, ValueError):
            return False
