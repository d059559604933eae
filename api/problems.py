"""Every API error is an RFC 9457 problem document (``application/problem+json``) with a stable
``code``. Engine errors are mapped to HTTP here and only here."""
from __future__ import annotations

from werkzeug.exceptions import HTTPException

import engine

PROBLEM_TYPE = "https://tiletum-pbem.example/problems/"
PROBLEM_CONTENT_TYPE = "application/problem+json"


class ApiError(HTTPException):
    """An error answered as problem+json: HTTP ``status``, stable ``code``, human ``detail``."""

    def __init__(self, status: int, code: str, detail: str, title: str | None = None,
                 headers: dict | None = None, **extra):
        super().__init__(description=detail)
        self.code = status              # werkzeug reads .code as the HTTP status
        self.problem_code = code
        self.detail = detail
        self.title = title
        self.extra = extra
        self.extra_headers = headers or {}


def unauthorized(detail="a seat token is required: send 'Authorization: Bearer <token>'"):
    return ApiError(401, "unauthorized", detail, headers={"WWW-Authenticate": 'Bearer realm="tiletum"'})


def forbidden(code: str, detail: str, **extra):
    return ApiError(403, code, detail, **extra)


def not_found(detail="no game with this id"):
    return ApiError(404, "game-not-found", detail)


def conflict(current_version: int, expected: int):
    return ApiError(409, "version-conflict",
                    f"the game is at version {current_version}, not {expected}: reload and retry",
                    current_version=current_version)


def from_engine(e: engine.EngineError, index: int | None = None) -> ApiError:
    """The one place where engine errors become HTTP errors."""
    extra = {} if index is None else {"move_index": index}
    if isinstance(e, engine.NotYourTurn):
        return ApiError(403, "not-your-turn", e.message, **extra)
    if isinstance(e, engine.NotationError):
        return ApiError(422, "bad-notation", e.message, rule="notation", **extra)
    if isinstance(e, engine.IllegalMove):
        return ApiError(422, "illegal-move", e.message, rule=e.code, **extra)
    return ApiError(422, e.code, e.message, **extra)


def problem_body(status: int, code: str, title: str, detail: str | None, extra: dict | None = None) -> dict:
    body = {"type": PROBLEM_TYPE + code, "title": title, "status": status, "code": code}
    if detail:
        body["detail"] = detail
    body.update(extra or {})
    return body


def documented(blp, status: int, code: str, description: str):
    """Decorator documenting an error response of an operation as problem+json, with an example."""
    from .schemas import Problem  # schemas import nothing from here
    import http as _http
    example = problem_body(status, code, _http.HTTPStatus(status).phrase, description)
    return blp.alt_response(status, schema=Problem, content_type=PROBLEM_CONTENT_TYPE,
                            description=description, example=example)
