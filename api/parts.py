"""The service's other parts as the API sees them, for ``GET /health``: the Celery workers
(answering a broadcast ``ping`` over the broker, by name) and the inbound SMTP listener
(answering its greeting). Which parts a deployment has is configuration: ``tiletum serve`` and
docker-compose set ``TILETUM_HEALTH_WORKERS`` (worker name prefixes, e.g. ``tiletum,cardinalbot``)
and ``TILETUM_HEALTH_MAILIN`` (``host:port``); an API on its own checks only its Redis."""
from __future__ import annotations

import smtplib
import threading
import time

PING_TIMEOUT = 1.0
CACHE_SECONDS = 5.0  # /health may be polled often: one broadcast ping per process per few seconds


class Parts:
    def __init__(self, broker_url: str | None, workers: list[str], mailin: str | None):
        self.broker_url, self.workers, self.mailin = broker_url, workers, mailin
        self._lock = threading.Lock()
        self._cached: tuple[float, dict] | None = None
        self._celery = None

    def check(self) -> dict[str, str]:
        """``{"worker:tiletum": "ok" | "down", ..., "mailin": "ok" | "down"}``."""
        with self._lock:
            if self._cached is not None and time.monotonic() - self._cached[0] < CACHE_SECONDS:
                return dict(self._cached[1])
            out = {}
            if self.workers:
                answered = self._ping()
                for name in self.workers:
                    out[f"worker:{name}"] = "ok" if any(h.startswith(name + "@") for h in answered) else "down"
            if self.mailin:
                out["mailin"] = "ok" if self._smtp_answers() else "down"
            self._cached = (time.monotonic(), out)
            return dict(out)

    def _ping(self) -> set[str]:
        try:
            if self._celery is None:
                from celery import Celery
                self._celery = Celery("tiletum-health", broker=self.broker_url)
                self._celery.conf.broker_connection_retry_on_startup = False
            replies = self._celery.control.ping(timeout=PING_TIMEOUT) or []
            return {host for reply in replies for host in reply}
        except Exception:  # the broker is down: so is every worker, as far as we can tell
            return set()

    def _smtp_answers(self) -> bool:
        host, _, port = self.mailin.rpartition(":")
        try:
            with smtplib.SMTP(host or "127.0.0.1", int(port), timeout=2) as s:
                return s.noop()[0] == 250
        except (OSError, smtplib.SMTPException, ValueError):
            return False
