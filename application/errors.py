"""Errors of the application core. Each names a *kind* of failure and a stable ``code``; the
adapters decide what a kind means to them (the HTTP adapter maps kinds to statuses in
``api/problems.py``, the email gateway turns them into an error email). Engine errors become
service errors here and only here (:func:`from_engine`).

A ``detail`` is said in English, as a message of the platform's catalog (docs/i18n.md, "The API's
language"): a literal given to one of the functions below (``invalid("bad-x", "the x is ...")``:
`make messages` extracts their detail argument by their names, babel.cfg), or :func:`said` with
its parameters (``said("no tournament {id}", id=tid)``), never an f-string. The adapters say it in
their reader's language (api/problems.py); a parameter that is a game's words stays as given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from games import ERRORS
from tablepost.i18n import N_, Said, said

if TYPE_CHECKING:
    from rules_common.errors import EngineError

__all__ = ["ServiceError", "Said", "said", "N_", "KINDS", "invalid", "unauthorized", "forbidden", "not_found",
           "missing", "refused", "limited", "failed", "conflict", "from_engine", "ENGINE_ERRORS"]

KINDS = ("invalid", "unauthorized", "forbidden", "not-found", "conflict", "failed", "limited")


class ServiceError(Exception):
    """A request the core refuses: ``kind`` (one of :data:`KINDS`), a stable ``code``, a
    ``detail`` for people, and ``extra`` fields for clients (e.g. ``move_index``, ``rule``,
    ``current_version``). Nothing was changed when one is raised."""

    def __init__(self, kind: str, code: str, detail: str, **extra):
        if kind not in KINDS:
            raise ValueError(f"unknown error kind {kind!r}")
        super().__init__(detail)
        self.kind = kind
        self.code = code
        self.detail = detail
        self.extra = extra

    def __repr__(self) -> str:
        return f"ServiceError({self.kind!r}, {self.code!r}, {self.detail!r})"


def invalid(code: str, detail: str, **extra) -> ServiceError:
    return ServiceError("invalid", code, detail, **extra)


def unauthorized(
        detail: str = N_("a seat token is required: send 'Authorization: Bearer <token>'")) -> ServiceError:
    return ServiceError("unauthorized", "unauthorized", detail)


def forbidden(code: str, detail: str, **extra) -> ServiceError:
    return ServiceError("forbidden", code, detail, **extra)


def not_found(detail: str = N_("no game with this id"), code: str = "game-not-found") -> ServiceError:
    return ServiceError("not-found", code, detail)


def missing(code: str, detail: str) -> ServiceError:
    """Something other than a game that does not exist (a tournament, a rating pool, a player)."""
    return ServiceError("not-found", code, detail)


def refused(code: str, detail: str, **extra) -> ServiceError:
    """The request is well formed but the thing's current state does not allow it (entries
    closed, already started, busy)."""
    return ServiceError("conflict", code, detail, **extra)


def limited(code: str, detail: str, retry_after: int) -> ServiceError:
    """Too many of these for now (the table talk's hourly budget); ``retry_after`` seconds."""
    return ServiceError("limited", code, detail, retry_after=retry_after)


def failed(code: str, detail: str) -> ServiceError:
    """The service could not do it (nothing was changed)."""
    return ServiceError("failed", code, detail)


def conflict(current_version: int, expected: int) -> ServiceError:
    return ServiceError("conflict", "version-conflict",
                        said("the game is at version {current}, not {expected}: reload and retry",
                             current=current_version, expected=expected),
                        current_version=current_version)


ENGINE_ERRORS = ERRORS["EngineError"]   # every game's engine errors (games/base.py)


def from_engine(e: EngineError, index: int | None = None) -> ServiceError:
    """The one place where engine errors (of any game: ``games.ERRORS``) become service errors."""
    extra = {} if index is None else {"move_index": index}
    if isinstance(e, ERRORS["NotYourTurn"]):
        return ServiceError("forbidden", "not-your-turn", e.message, **extra)
    if isinstance(e, ERRORS["NotationError"]):
        return ServiceError("invalid", "bad-notation", e.message, rule="notation", **extra)
    if isinstance(e, ERRORS["IllegalMove"]):
        return ServiceError("invalid", "illegal-move", e.message, rule=e.code, **extra)
    return ServiceError("invalid", e.code, e.message, **extra)
