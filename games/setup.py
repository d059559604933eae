"""What a game declares of its setup (issue 52, "each game owns its setup"): its own options and its
own automa. The service builds from these declarations, and from nothing else, the create, lobby and
tournament schemas, the OpenAPI document, the catalog (``GET /api/v1/catalog``) and the new-game
form, the validation of a new game's options (:func:`check_options`, the default ``Rules.setup``),
the automa's rating pools and player ids, and which policy plays an automa's seat (``seats/``).

A game sets ``options`` (a tuple of :class:`Option`) and ``automa`` (an :class:`Automa` or None) on
its adapter; its seat limits (``min_players``/``max_players``) and ``seat_kinds`` are declared
there too. Pure: no I/O, nothing of the service.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from tablepost.i18n import said

KINDS = ("choice", "integer", "boolean", "choices")   # an option's kinds ("choices": a list of choices)
SERVICE_SEAT_KINDS = ("human", "ai", "bot")   # the kinds of seat the service itself plays (no automa)
OPEN = "open"   # a seat still to be taken in the lobby (docs/lobby.md): no game declares it


# A declared word (an option's or a choice's title and description, an automa's title, description and
# levels' words) as the reader reads it: the game's own catalog's message in the reader's language
# (games/base.py ``declared_words``; docs/adding-a-game.md, "Its declared words"). The words are declared
# in English, marked for the game's catalog where they are declared (``N_``); an automa's ``name`` and the
# options' and choices' names and values are not words: they stay as they are.
Say = Callable[[str], str]


def as_declared(text: str) -> str:
    """English: a declared word as it is declared."""
    return text


class OptionError(ValueError):
    """A value an option does not take (the message says why, naming the option)."""


@dataclass(frozen=True)
class Choice:
    """One value of a choice, with its words for the form."""
    value: str
    title: str
    description: str = ""


@dataclass(frozen=True)
class Option:
    """One option of a game's own. ``kind``: ``choice`` (one of ``choices``), ``integer`` (from
    ``min`` to ``max``), ``boolean``, or ``choices`` (a list of ``choices``' values, at most ``max``
    long, each at most once). ``default``: the value a new game takes when the option is not given
    (None: the option is simply absent). ``tournament``: a tournament may set it for all its games."""
    name: str
    title: str
    description: str
    kind: str = "choice"
    default: Any = None
    choices: tuple[Choice, ...] = ()
    min: int | None = None
    max: int | None = None
    tournament: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind in ("choice", "choices") and not self.choices:
            raise ValueError(f"option {self.name}: a {self.kind} option declares its choices")
        if self.default is not None:
            self.check(self.default)

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(c.value for c in self.choices)

    def check(self, value: Any) -> Any:
        """``value`` as the option takes it, or :class:`OptionError`."""
        if self.kind == "boolean":
            if not isinstance(value, bool):
                raise OptionError(said("{name} is true or false", name=self.name))
            return value
        if self.kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(said("{name} is a whole number", name=self.name))
            if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
                raise OptionError(said("{name} is from {min} to {max}", name=self.name, min=self.min,
                                       max=self.max))
            return value
        if self.kind == "choice":
            if value not in self.values:
                raise OptionError(said("{name} is one of {values}", name=self.name,
                                       values=", ".join(self.values)))
            return value
        if not isinstance(value, list) or any(v not in self.values for v in value):
            raise OptionError(said("{name} is a list of {values}", name=self.name,
                                   values=", ".join(self.values)))
        if len(set(value)) != len(value) or (self.max is not None and len(value) > self.max):
            raise OptionError(said("{name} lists each of its choices at most once", name=self.name)
                              if self.max is None else
                              said("{name} lists each of its choices at most once, at most {max}",
                                   name=self.name, max=self.max))
        return list(value)

    def as_doc(self, say: Say = as_declared) -> dict:
        """The option as the catalog serves it (the new-game form builds its input from it), its words
        said by ``say`` (the reader's language)."""
        # (an option without a default has none: no "default" at all, which the API document types)
        return {"name": self.name, "title": say(self.title), "description": say(self.description),
                "kind": self.kind, **({} if self.default is None else {"default": self.default}),
                "min": self.min, "max": self.max, "tournament": self.tournament,
                "choices": [{"value": c.value, "title": say(c.title), "description": say(c.description)}
                            for c in self.choices]}

    def words(self) -> list[str]:
        """Its declared words (its own and its choices' titles and descriptions, the empty left out)."""
        return [t for t in (self.title, self.description, *(x for c in self.choices
                                                            for x in (c.title, c.description))) if t]


@dataclass(frozen=True)
class Level:
    """One level of an automa: a rating pool of its own."""
    name: str
    title: str
    description: str = ""


@dataclass(frozen=True)
class Automa:
    """A game's own solo opponent: the service seats it as a seat of kind ``kind``, a game against it
    has ``seats`` seats (its own and the others: people or AI seats), its seat is the first
    (``first``). A new game names it with the game option ``option``: ``{"level": <level>, <setting>:
    ...}`` (``settings``: the automa's own options; given, they replace the level and the game is not
    rated), ``{"level": default_level}`` when absent. ``policy``: the dotted ``module:function`` that
    plays its seat (``function(game_id, seat, view) -> moves | None``, ``seats/``). ``pool`` and
    ``player``: the names of its rating pool and of its player id at a level (``{game}`` and
    ``{level}`` filled in)."""
    kind: str
    title: str
    name: str
    levels: tuple[Level, ...]
    default_level: str
    policy: str
    option: str = "automa"
    settings: tuple[Option, ...] = ()
    seats: int = 2
    first: bool = True
    pool: str = "{game}:automa:{level}"
    player: str = "automa:{game}:{level}"
    description: str = ""

    def __post_init__(self) -> None:
        if self.default_level not in self.level_names:
            raise ValueError(f"automa {self.name}: default level {self.default_level!r} is not a level")
        if self.kind in SERVICE_SEAT_KINDS + (OPEN,):
            raise ValueError(f"automa {self.name}: seat kind {self.kind!r} is the service's own")
        if ":" not in self.policy:
            raise ValueError(f"automa {self.name}: its policy is 'module:function'")

    @property
    def level_names(self) -> tuple[str, ...]:
        return tuple(level.name for level in self.levels)

    def pool_of(self, game: str, level: str) -> str:
        """The rating pool of games against it at ``level``."""
        return self.pool.format(game=game, level=level)

    def player_of(self, game: str, level: str) -> str:
        """Its player id in the pool of ``level``."""
        return self.player.format(game=game, level=level)

    def check(self, value: Any) -> dict:
        """A new game's ``options[option]`` as the game takes it, or :class:`OptionError`."""
        if not isinstance(value, dict):
            raise OptionError(said("{option} is an object: its level and settings", option=self.option))
        known = {"level"} | {o.name for o in self.settings}
        other = sorted(k for k in value if k not in known)
        if other:
            raise OptionError(said("{option} takes {known}, not {other}", option=self.option,
                                   known=", ".join(sorted(known)), other=", ".join(other)))
        out = {}
        if "level" in value:
            if value["level"] not in self.level_names:
                raise OptionError(said("{option}.level is one of {levels}", option=self.option,
                                       levels=", ".join(self.level_names)))
            out["level"] = value["level"]
        for o in self.settings:
            if o.name in value:
                try:
                    out[o.name] = o.check(value[o.name])
                except OptionError as e:
                    raise OptionError(said("{option}.{why}", option=self.option, why=e.args[0])) from None
        return out

    def as_doc(self, game: str, say: Say = as_declared) -> dict:
        """The automa as the catalog serves it, its words said by ``say`` (its ``name`` is a name)."""
        return {"kind": self.kind, "title": say(self.title), "name": self.name, "option": self.option,
                "description": say(self.description), "seats": self.seats,
                "default_level": self.default_level,
                "levels": [{"name": v.name, "title": say(v.title), "description": say(v.description),
                            "pool": self.pool_of(game, v.name)} for v in self.levels],
                "settings": [o.as_doc(say) for o in self.settings]}

    def words(self) -> list[str]:
        """Its declared words: its title and description, its levels' and its settings' (the empty left
        out)."""
        return [t for t in (self.title, self.description, *(x for v in self.levels
                                                            for x in (v.title, v.description)),
                            *(x for o in self.settings for x in o.words())) if t]


@dataclass(frozen=True)
class Setup:
    """What :func:`check_options` makes of a new game's options: those stored in its meta, those its
    engine takes, and the automa's settings (None: no automa plays)."""
    options: dict = field(default_factory=dict)
    engine: dict = field(default_factory=dict)
    automa: dict | None = None


def own_options(options: tuple[Option, ...], automa: Automa | None) -> tuple[str, ...]:
    """The names of the options a game takes besides the service's: its own and its automa's."""
    return tuple(o.name for o in options) + ((automa.option,) if automa is not None else ())


def check_options(title: str, options: tuple[Option, ...], automa: Automa | None, given: dict) -> Setup:
    """A new game's options (the service's left out) checked against what the game declares: each
    own option checked, its default filled in; the automa's option checked (and its default level
    filled in when the game is against it: :func:`seat_automa`). An option the game does not declare
    raises :class:`OptionError` naming it."""
    names = own_options(options, automa)
    other = sorted(k for k in given if k not in names)
    if other:
        raise OptionError(said("a game of {game} takes none of these options: {other} (its own: {own})",
                               game=title, other=", ".join(other), own=", ".join(names)) if names else
                          said("a game of {game} takes none of these options: {other}", game=title,
                               other=", ".join(other)))
    out: dict = {}
    for o in options:
        if o.name in given and given[o.name] is not None:
            out[o.name] = o.check(given[o.name])
        elif o.default is not None:
            out[o.name] = o.default
    settings = None
    if automa is not None and given.get(automa.option) is not None:
        settings = automa.check(given[automa.option])
    return Setup(options=out, engine=dict(out), automa=settings)


__all__ = ["Option", "Choice", "Level", "Automa", "Setup", "OptionError", "Say", "as_declared",
           "check_options", "own_options",
           "KINDS", "SERVICE_SEAT_KINDS", "OPEN"]
