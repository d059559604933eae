"""Every API error is an RFC 9457 problem document (``application/problem+json``) with a stable
``code``. The application core's errors (which carry the engine's) are mapped to HTTP here and
only here (:func:`from_service`).

Each ``detail`` is said in English where it is raised, as a catalog message: a literal given to
``ApiError`` or to a refusal of ``application/errors.py`` (extracted by their names, babel.cfg), or a
:func:`tablepost.i18n.said` with its parameters. The problem body translates it once, in the
request's language (``ProblemApi.handle_http_exception``, api/language.py); its ``code`` stays."""
from __future__ import annotations

import http
import re

from werkzeug.exceptions import HTTPException

from application.errors import ServiceError
from tablepost.i18n import N_, Said, Translator, said

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


SERVER_FAILED = N_("the server failed; the request changed nothing")
# werkzeug's own descriptions of the statuses it answers by itself (a URL that is no route, a method a
# path lacks, a body webargs could not read), in the catalog so that they are said in every language
WERKZEUG_DETAILS = (
    N_("The browser (or proxy) sent a request that this server could not understand."),
    N_("The server could not verify that you are authorized to access the URL requested. You either "
       "supplied the wrong credentials (e.g. a bad password), or your browser doesn't understand how to "
       "supply the credentials required."),
    N_("The requested URL was not found on the server. If you entered the URL manually please check your "
       "spelling and try again."),
    N_("The method is not allowed for the requested URL."),
    N_("The data value transmitted exceeds the capacity limit."),
    N_("The server does not support the media type transmitted in the request."),
    N_("The request was well-formed but was unable to be followed due to semantic errors."),
    N_("This user has exceeded an allotted request count. Try again later."),
)
# marshmallow's and webargs' messages for a field (in ``errors``); those with ``{parameters}`` are
# recognised as marshmallow formats them (:func:`field_message`), their parameters kept
FIELD_MESSAGES = (
    N_("Missing data for required field."), N_("Unknown field."), N_("Field may not be null."),
    N_("Not a valid integer."), N_("Not a valid string."), N_("Not a valid boolean."),
    N_("Not a valid number."), N_("Not a valid list."), N_("Not a valid mapping type."),
    N_("Invalid input type."), N_("Invalid value."), N_("Not a valid email address."),
    N_("Not a valid URL."), N_("Invalid input."), N_("Number too large."),
    N_("Special numeric values (nan or infinity) are not permitted."),
    N_("String does not match expected pattern."), N_("Invalid JSON body."),
    N_("Must be one of: {choices}."),
    N_("Must be greater than or equal to {min} and less than or equal to {max}."),
    N_("Must be greater than or equal to {min}."), N_("Must be less than or equal to {max}."),
    N_("Must be greater than {min} and less than {max}."),
    N_("Shorter than minimum length {min}."), N_("Longer than maximum length {max}."),
    N_("Length must be between {min} and {max}."), N_("Length must be {equal}."),
    N_("One or more of the choices you made was not in: {choices}."),
)
# (re.escape writes "{min}" as "\\{min\\}": each such parameter becomes a named group)
_FORMATTED = [(re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(m)) + "$"), m)
              for m in FIELD_MESSAGES if "{" in m]


def field_message(message: str, tr: Translator) -> str:
    """One message of a field in ``tr``'s language: a message of the catalog as it is, or one of
    marshmallow's formatted ones (``Must be one of: a, b.``) by its format, its values kept."""
    if isinstance(message, Said):
        return tr.say(message)
    for pattern, msgid in _FORMATTED:
        m = pattern.match(message)
        if m:
            return tr.say(said(msgid, **m.groupdict()))
    return tr.say(message)


def field_messages(messages, tr: Translator):
    """webargs' ``messages`` (the ``errors`` of a 422: field names to lists of messages, nested)
    with each message in ``tr``'s language where the catalog has it; field names stay."""
    if isinstance(messages, dict):
        return {k: field_messages(v, tr) for k, v in messages.items()}
    if isinstance(messages, list):
        return [field_messages(m, tr) for m in messages]
    return field_message(messages, tr) if isinstance(messages, str) else messages


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
