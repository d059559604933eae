"""The seats' HTTP client of the public REST API (like lichess-bot's client).

One ``requests.Session`` with timeouts; 5xx and connection errors are retried with exponential
backoff; 4xx answers are never retried and raise :class:`ApiError` with the problem document.
A 429 raises :class:`RateLimited` at once with its Retry-After: the caller decides when to try
again (the Celery task reschedules itself), so a throttled game never holds the worker that
plays every other game's turns.
"""
from __future__ import annotations

import logging
import time

import requests

log = logging.getLogger("tablepost.seats.client")


class ApiError(Exception):
    def __init__(self, status: int, problem: dict):
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status = status
        self.problem = problem

    @property
    def code(self) -> str | None:
        return self.problem.get("code")


class RateLimited(ApiError):
    """429: this budget is spent; try again in ``retry_after`` seconds."""

    def __init__(self, problem: dict, retry_after: float):
        super().__init__(429, problem)
        self.retry_after = retry_after


class ApiClient:
    def __init__(self, base_url: str, token: str, timeout: float = 10.0, retries: int = 5,
                 backoff: float = 0.2, session: requests.Session | None = None):
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.session = session or requests.Session()
        self.session.headers.update({"Authorization": f"Bearer {token}", "User-Agent": "tablepost-seats/1"})

    def _request(self, method: str, path: str, **kw) -> requests.Response:
        url = f"{self.base}{path}"
        delay = self.backoff
        for attempt in range(self.retries + 1):
            try:
                resp = self.session.request(method, url, timeout=self.timeout, **kw)
            except (requests.ConnectionError, requests.Timeout) as e:
                if attempt == self.retries:
                    raise
                log.warning("%s %s failed (%s); retrying in %.1fs", method, path, e, delay)
            else:
                if resp.status_code < 400:
                    return resp
                if resp.status_code == 429:
                    after = resp.headers.get("Retry-After", "")
                    raise RateLimited(_problem(resp), float(after) if after.isdigit() else 60.0)
                if resp.status_code < 500 or attempt == self.retries:
                    raise ApiError(resp.status_code, _problem(resp))
                log.warning("%s %s answered %s; retrying in %.1fs", method, path, resp.status_code, delay)
            time.sleep(delay)
            delay = min(delay * 2, 30.0)
        raise AssertionError("unreachable")

    # --- the API -------------------------------------------------------------------------
    def summary(self, game_id: str) -> dict:
        return self._request("GET", f"/api/v1/games/{game_id}").json()

    def state(self, game_id: str) -> dict:
        return self._request("GET", f"/api/v1/games/{game_id}/state").json()

    def legal_moves(self, game_id: str) -> dict:
        return self._request("GET", f"/api/v1/games/{game_id}/legal-moves").json()

    def submit(self, game_id: str, expected_version: int, moves: list[str], key: str | None = None) -> dict:
        headers = {"Idempotency-Key": key} if key else {}
        return self._request("POST", f"/api/v1/games/{game_id}/moves",
                             json={"expected_version": expected_version, "moves": moves},
                             headers=headers).json()

    def due_turns(self) -> list[dict]:
        """Games where a seat of a game's own automa is to act (the bot credential only)."""
        return self._request("GET", "/api/v1/bot/turns").json()["turns"]


def _problem(resp: requests.Response) -> dict:
    try:
        body = resp.json()
    except ValueError:
        body = None
    return body if isinstance(body, dict) else {"code": "http-error", "detail": resp.text[:200]}
