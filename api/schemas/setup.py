"""The request fields of every game's own options and automa, built from what each registered game
declares (``games.Game.options`` and ``games.Game.automa``, games/setup.py): the create schema's
``options`` (api/schemas/games.py), the tournament schema's options (api/schemas/tournaments.py) and
the seat kinds. Nothing here names a game: a game with an option or an automa of its own appears in
the schemas, the OpenAPI document and the validation without an edit here.

A field checks the form of a value (its kind, its choices, its range); whether the game of the
request takes the option at all is the game's own setup's to say (``Rules.setup``: ``bad-options``),
and the tournament schema's (``table_fits_the_game``)."""
from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

import games
from games.setup import OPEN, Automa, Option
from tablepost.i18n import said

from .common import Base, Boolean, Integer, Line


def _games_with(pred) -> list[games.Game[Any]]:
    return [g for g in games.GAMES.values() if pred(g)]


def _whose(owners: list[games.Game[Any]]) -> str:
    titles = [g.title for g in owners]
    named = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
    return ("an option of " + named
            + " only")


def option_field(o: Option, description: str, **kw) -> fields.Field:
    """The request field of an option of the kind it declares."""
    meta = {"description": description, **({"default": o.default} if o.default is not None else {})}
    if o.kind == "boolean":
        return Boolean(metadata=meta, **kw)
    if o.kind == "integer":
        return Integer(validate=validate.Range(o.min, o.max), metadata=meta, **kw)
    if o.kind == "choice":
        return Line(validate=validate.OneOf(list(o.values)), metadata=meta, **kw)
    return fields.List(Line(validate=validate.OneOf(list(o.values))),
                       validate=validate.Length(0, o.max), metadata=meta, **kw)


def _words(o: Option) -> str:
    choices = "; ".join(f"`{c.value}`: {c.description or c.title}" for c in o.choices)
    default = f" (default {o.default})" if o.default is not None else ""
    return f"{o.description}{default}" + (f" ({choices})" if choices and o.kind == "choice" else "")


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


def automa_schema(automa: Automa, owners: list[games.Game[Any]]) -> type[ma.Schema]:
    """The schema of an automa's option: its level and its own settings (``SoloOptions`` for
    Tiletum's ``solo``)."""
    levels = ", ".join(f"`{v.name}` ({v.title}: {v.description})" if v.description else f"`{v.name}`"
                       for v in automa.levels)

    class Meta:
        unknown = ma.RAISE
    attrs: dict[str, Any] = {
        "Meta": Meta,
        "level": Line(validate=validate.OneOf(list(automa.level_names)), metadata={
            "description": f"the level of {automa.title}: {levels}; default {automa.default_level}"})}
    for o in automa.settings:
        attrs[o.name] = option_field(o, _words(o))
    return type(f"{_camel(automa.option)}Options", (Base,), attrs)


def _same(a: Option, b: Option) -> bool:
    return (a.kind, a.values, a.min, a.max) == (b.kind, b.values, b.min, b.max)


def _option_fields(tournament: bool) -> dict[str, fields.Field]:
    """name -> field: every registered game's own options (those a tournament may set, with
    ``tournament``), and, for a game, its automa's option. Two games declaring one name alike share
    its field; declared differently, the field takes any value and each game's setup checks it."""
    out: dict[str, fields.Field] = {}
    declared: dict[str, list[tuple[games.Game[Any], Option]]] = {}
    for g in games.GAMES.values():
        for o in g.options:
            if o.tournament or not tournament:
                declared.setdefault(o.name, []).append((g, o))
    for name, pairs in declared.items():
        owners = [g for g, _ in pairs]
        first = pairs[0][1]
        if all(_same(first, o) for _, o in pairs):
            out[name] = option_field(first, f"{_whose(owners)}: {_words(first)}")
        else:
            out[name] = fields.Raw(metadata={"description": f"{_whose(owners)}: each game's own (GET "
                                                            "/api/v1/catalog)"})
    if not tournament:
        for g in _games_with(lambda g: g.automa is not None):
            automa = g.automa
            assert automa is not None
            if automa.option in out:   # two games with an automa of the same option: each checks its own
                out[automa.option] = fields.Raw(
                    metadata={"description": "a game's own automa (GET /api/v1/catalog)"})
                continue
            out[automa.option] = fields.Nested(automa_schema(automa, [g]), metadata={
                "description": f"{_whose([g])}: {automa.description or 'a game against ' + automa.title}"})
    return out


GAME_OPTION_FIELDS = _option_fields(tournament=False)
TOURNAMENT_OPTION_FIELDS = _option_fields(tournament=True)
OWN_OPTIONS = tuple(GAME_OPTION_FIELDS)   # every game's own options' names
# the kinds of seat a request may name: the service's own, each game's automa's, and an open seat
SEAT_KINDS = list(dict.fromkeys(["human"]
                                + [g.automa.kind for g in games.GAMES.values() if g.automa is not None]
                                + ["bot", "ai"] + [OPEN]))
for _g in games.GAMES.values():   # a kind a game declares besides these is a kind too
    SEAT_KINDS += [k for k in _g.seat_kinds if k not in SEAT_KINDS]


def automa_kinds_words() -> str:
    """The automata's seat kinds in words, for the seat kind's description."""
    return "; ".join(f"`{g.automa.kind}`: {g.automa.title} ({g.title}: exactly one such seat and "
                     f"{g.automa.seats - 1} human or ai)" for g in _games_with(lambda g: g.automa is not None)
                     if g.automa is not None)


def check_game_options(game: games.Game[Any] | None, given: dict, where: str = "options") -> None:
    """A ValidationError naming each of ``given``'s own options that ``game`` does not declare."""
    if game is None:
        return
    for name in sorted(given):
        if name in OWN_OPTIONS and name not in game.own_options and given[name] is not None:
            owners = [g.title for g in games.GAMES.values() if name in g.own_options]
            raise ma.ValidationError(said("{name} is an option of {owners}, not of {game}", name=name,
                                          owners=", ".join(owners), game=game.title),
                                     name if where == "" else where)


__all__ = ["GAME_OPTION_FIELDS", "TOURNAMENT_OPTION_FIELDS", "OWN_OPTIONS", "SEAT_KINDS", "option_field",
           "automa_schema", "automa_kinds_words", "check_game_options"]
