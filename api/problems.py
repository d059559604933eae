"""Every API error is an RFC 9457 problem document (``application/problem+json``) with a stable
``code``. The application core's errors (which carry the engine's) are mapped to HTTP here and
only here (:func:`from_service`)."""
from __future__ import annotations

import http

from werkzeug.exceptions import HTTPException

from application.errors import ServiceError

from .schemas.common import Problem

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


# The one place where the core's error kinds (application/errors.py, which maps engine errors)
# become HTTP statuses.
STATUS_OF_KIND = {"invalid": 422, "unauthorized": 401, "forbidden": 403, "not-found": 404,
                  "conflict": 409, "failed": 500, "limited": 429}


def from_service(e: ServiceError) -> ApiError:
    """The HTTP error for a refusal of the application core."""
    headers = {"WWW-Authenticate": 'Bearer realm="tablepost"'} if e.kind == "unauthorized" else None
    if e.kind == "limited":
        headers = {"Retry-After": str(e.extra.get("retry_after", 60))}
    return ApiError(STATUS_OF_KIND[e.kind], e.code, e.detail, headers=headers, **e.extra)


def problem_body(status: int, code: str, title: str, detail: str | None, extra: dict | None = None) -> dict:
    body = {"type": PROBLEM_TYPE + code, "title": title, "status": status, "code": code}
    if detail:
        body["detail"] = detail
    body.update(extra or {})
    return body


def documented(blp, status: int, code: str, description: str):
    """Decorator documenting an error response of an operation as problem+json, with an example."""
    example = problem_body(status, code, http.HTTPStatus(status).phrase, description)
    return blp.alt_response(status, schema=Problem, content_type=PROBLEM_CONTENT_TYPE,
                            description=description, example=example)
