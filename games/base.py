"""The interface a game implements for the service, split by concern into typed protocols, and
the engine errors of all games grouped by kind (:data:`ERRORS`), for ``application.errors.from_engine``.

What every hosted game is (:class:`Game`, checked by mypy where ``games.GAMES`` is built):

- :class:`Rules` -- what a game is and how it is played: its name, seats and seat kinds, the
  seating of a new game (:meth:`Rules.setup`), new game, moves, replay, snapshots;
- :class:`Views` -- reading a position: who acts, scores, round, a seat's position document;
- :class:`Records` -- the record, the seed's fairness, the events in words;
- :class:`Pictures` -- the board and the pieces as SVG.

What a game may also do, each declared rather than left to raise:

- :class:`EmailTexts` -- the email channel plays it (``email = True``: mail/ sends its turn emails
  and reads replies through these methods);
- :class:`Search` -- the game-generic AI (``ai.generic``) can search it (a game whose
  ``seat_kinds`` hold ``"ai"`` needs it, or an AI of its own in ``ai``);
- :class:`Reviewed` -- a finished game's decisions can be reviewed by its AI (``review = True``:
  application/review.py asks ``ai.review_decisions`` for each decision's estimated loss, and the
  game for the position before a decision in words and the bound of any estimate).

Every method is pure; a state is the engine's own ``GameState`` (the type parameter ``S``).
:class:`GameDefaults`, :class:`EmailDefaults` and :class:`SearchDefaults` give the methods that
have a sensible default; a game class inherits them and writes the rest, and mypy says which
are missing (``tests/test_types.py``).
"""
from __future__ import annotations

import inspect
import random
from types import ModuleType
from typing import Any, Callable, Generic, Protocol, TypeVar, runtime_checkable

from rules_common import errors as _errors
from rules_common.errors import said as _said
from rules_common.words import PSEUDO, Words
from rules_common.words import words as _words

from .setup import Automa, Option, OptionError, check_options, own_options


class UnknownGame(ValueError):
    """No game of that name is hosted (``name``: the name asked for)."""

    def __init__(self, message: str, name: str | None = None):
        super().__init__(message)
        self.name = name


class BadSetup(ValueError):
    """A new game's seats or options that the game does not take (:meth:`Rules.setup`): ``code``
    is the service's error code (``bad-seats``, ``bad-options``)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


# Every game's engine raises the same error classes (``rules_common.errors``: message, code, rule).
ERRORS = {
    "EngineError": _errors.EngineError,
    "NotYourTurn": _errors.NotYourTurn,
    "NotationError": _errors.NotationError,
    "IllegalMove": _errors.IllegalMove,
}

S = TypeVar("S")   # a game's state: the engine's GameState
S_in = TypeVar("S_in", contravariant=True)   # the same, in a protocol that only takes states


class Rules(Protocol[S]):
    """What a game is and how it is played."""

    @property
    def name(self) -> str: ...   # the game's name in the API and the meta ("tiletum")
    @property
    def title(self) -> str: ...   # in words ("Tiletum")
    @property
    def min_players(self) -> int: ...
    @property
    def max_players(self) -> int: ...
    @property
    def rules_version(self) -> str: ...
    @property
    def seat_kinds(self) -> tuple[str, ...]: ...   # its seats' kinds: human, ai, bot, cardinalbot
    @property
    def state_type(self) -> type: ...   # the engine's GameState class (games.of_state)
    @property
    def options(self) -> tuple[Option, ...]: ...   # its own options, declared (games/setup.py)
    @property
    def automa(self) -> Automa | None: ...   # its own solo opponent, declared (games/setup.py), if any
    @property
    def own_options(self) -> tuple[str, ...]: ...   # the options it takes besides the service's (its
                                                    # own and its automa's: derived from the two above)
    @property
    def review(self) -> bool: ...   # whether a finished game's moves can be reviewed (application/review.py)
    @property
    def verb_words(self) -> dict[str, str]: ...   # the notation's verbs in words ("take" -> "take a die")
    @property
    def terms(self) -> tuple[str, ...]: ...   # its rulebook's own nouns, which the service never speaks
    @property
    def vocabulary(self) -> frozenset[str]: ...   # every word of its own (:meth:`GameDefaults.vocabulary`)
    @property
    def phases(self) -> tuple[str, ...]: ...   # every word :meth:`Views.phase` may say, "over" last
    @property
    def position_format(self) -> str: ...   # the ``format`` of its position document ("tiletum-position/1")
    @property
    def automa_levels(self) -> tuple[str, ...]: ...   # its own automa's levels (a rating pool each), if any
                                                      # (derived from ``automa``)
    @property
    def resign_mode(self) -> str: ...   # who plays a resigned seat's turns in a game of 3+ seats
                                        # (docs/architecture.md, "Resigning"): "stand-in"

    def end_by_resignation(self, state: S, winner: int) -> None:
        """End ``state`` (a fresh copy, changed in place) because every seat but ``winner``
        resigned: the game is over, ``winner`` won, nobody is to act."""
        ...

    def setup(self, seats: list[dict], options: dict) -> tuple[list[dict], dict, dict]:
        """A new game's seating and options, checked: ``seats`` (of kinds in ``seat_kinds``) in the
        game's seat order, and ``options`` (the game's own: the service's are taken out before)
        as the game's meta keeps them and as :meth:`new_game` takes them. :class:`BadSetup`."""
        ...

    def new_game(self, players: int, seed: str, options: dict) -> tuple[S, list[dict]]: ...

    def replay(self, events: list[dict], state: S | None = None) -> S: ...

    def from_doc(self, doc: dict) -> S:
        """A stored snapshot (a position document the service wrote itself) back to a state."""
        ...

    def play(self, state: S, seat: int, move: str, seed: str) -> tuple[list[dict], S]:
        """Check and apply one move in notation: (events, new state); the engine's errors."""
        ...

    def decide(self, state: S, seat: int, move: str, seed: str) -> list[dict]: ...

    def evolve(self, state: S, event: dict) -> S: ...

    def legal_moves(self, state: S) -> list[tuple[str, str]]:
        """The legal moves of the seat to act, sorted and unique: (notation, in words)."""
        ...

    def parse(self, text: str) -> Any: ...

    def format(self, move: Any) -> str: ...

    def refusal(self, state: S, seat: int, text: str, message: str) -> str:
        """A typed move the notation refuses (``message``: the parser's reason, an error's
        ``reason``, said in the refusal's language where it is a ``rules_common.errors.Reason``),
        said so that the seat to act knows what it can type: 'move' is not a move here; you can take
        a die, ... A game that speaks more than English takes ``lang=`` (:func:`in_language`)."""
        ...

    def reason(self, error: Exception) -> str:
        """An engine error's message (``rules_common.errors.EngineError``: why a move is refused)
        in the game's words; a game that speaks more than English takes ``lang=`` (:func:`in_language`)
        and says it in that language (English: ``error.message``, byte for byte)."""
        ...

    def can_undo(self, state: S) -> bool: ...

    def can_snapshot(self, state: S) -> bool:
        """Whether a snapshot may be taken here (nothing that only the event log keeps is lost)."""
        ...

    def fallback_move(self, state: S) -> str:
        """The move a stand-in plays for the seat to act should the AI fail (application/deadlines.py):
        a legal move in notation, by a fixed rule of the game's."""
        ...

    def automa_seat(self, state: S) -> int | None:
        """The seat the game's own automa plays (Tiletum's Cardinalbot in a solo game), or None:
        the service hands that seat's turns to the automa's worker (application/scheduling.py)."""
        ...


class Views(Protocol[S_in]):
    """Reading a position."""

    @property
    def score_unit(self) -> str: ...   # what a score counts, in results ("VP" for Tiletum)

    def actor(self, state: S_in) -> int | None:
        """The seat to act, or None (the game is over, or no seat acts now)."""
        ...

    def is_over(self, state: S_in) -> bool: ...

    def phase(self, state: S_in) -> str:
        """The phase of the game in a word of the game's (``over`` once it is over), as the
        dashboards and summaries show it."""
        ...

    def scores(self, state: S_in) -> list[int]: ...

    def winner(self, state: S_in) -> int | None: ...

    def places(self, state: S_in) -> list[int]:
        """Each seat's finishing place in a finished game (1 is first), by the game's own rules:
        seats its tie-break cannot separate share a place (1, 2, 2, 4)."""
        ...

    def round(self, state: S_in) -> int: ...

    def progress(self, state: S_in) -> str:
        """How far the game is, in its own terms, for a player's list of games ("Round 2 of 4",
        "43 tiles left"): public information only."""
        ...

    def view(self, state: S_in, seat: int | None) -> dict:
        """The position document as ``seat`` (None: a spectator) may see it: nothing hidden."""
        ...

    def to_doc(self, state: S_in) -> dict: ...


class Records(Protocol[S]):
    """The record of a game, the fairness of its chance, its events in words."""

    @property
    def cli(self) -> str: ...   # the command line that verifies a record

    def seed_commitment(self, seed: str) -> str: ...

    def fairness_algorithm(self, meta: dict, state: S) -> str: ...

    def write_record(self, events: list[dict], headers: dict[str, str]) -> str: ...

    def replay_record(self, text: str) -> tuple[dict[str, str], list[dict], S]:
        """A record's (headers, events, final state), every move checked; the engine's errors."""
        ...

    def verify_events(self, events: list[dict], seed: str, commitment: str | None) -> list[str]:
        """The problems found checking every recorded draw against ``seed`` and ``commitment``."""
        ...

    def verify_record(self, text: str, seed: str | None = None) -> list[str]: ...

    def event_texts(self, events: list[dict], start: int = 0, state: S | None = None,
                    names: list[str] | None = None, machines: frozenset[int] = frozenset()) -> list[str]:
        """One sentence for each of ``events[start:]``, ``events`` following ``state`` (None: from
        the game's start). ``state`` may be changed (folded onto): pass a copy you do not keep.
        Each as :meth:`event_text` says it."""
        ...

    def event_text(self, before: S | None, event: dict, names: list[str] | None = None,
                   machines: frozenset[int] = frozenset()) -> str:
        """One event in words, in the position ``before`` it (None before the first event); reads
        ``before`` only. The move in the imperative without ``names``; with the seats' ``names``,
        who did what in the third person (the seats in ``machines``, the Cardinalbot and AI seats,
        as "its"). The move path stores each event's text with it (application/store.py)."""
        ...


class Pictures(Protocol[S_in]):
    """The game's pictures."""

    def board_svg(self, state: S_in, names: list[str] | None = None) -> str:
        """The board as SVG; ``names``: the seats' names, where the board shows them. A game whose
        words speak more than English takes ``lang=`` for the board's words (:func:`in_language`)."""
        ...

    def pieces_svg(self, lang: str | None = None) -> str | None:
        """The pictures of the game's pieces for its game page, as an SVG sprite of ``<symbol>``s
        (None: the page needs none), their words in ``lang`` for a game whose words speak it. The same
        for every game of it: nothing of a position."""
        ...


class Game(Rules[S], Views[S], Records[S], Pictures[S], Protocol[S]):
    """One game as the service hosts it. ``email`` says whether it is also :class:`EmailTexts`."""

    @property
    def email(self) -> bool: ...   # whether the email channel (mail/) plays it
    @property
    def languages(self) -> tuple[str, ...]: ...   # the languages its own words speak, English first:
    # a game with more than English takes ``lang=`` on each method that returns its words
    # (:func:`in_language`)


@runtime_checkable
class EmailTexts(Protocol[S_in]):
    """The email channel's words and pictures (mail/: turn emails and replies), for a game with
    ``email = True``."""

    def email_what(self, state: S_in) -> str:
        """What the seat to act is asked for, in the turn email's subject and opening."""
        ...

    def email_position_lines(self, state: S_in, seat: int, names: list[str]) -> list[str]:
        """Where the game stands for ``seat``, a few lines of plain text (no hidden information)."""
        ...

    def email_moves(self, state: S_in, seat: int, names: list[str] | None = None) -> list[tuple[str, str]]:
        """The rows of the turn email's move list, (what to type, in words): every legal move
        of the seat must be typable from them. ``names``: the seats' names, for words that name
        players ("closes Ada's city")."""
        ...

    def email_reply_hint(self) -> str:
        """One sentence on how a reply plays (after "Reply ... one per line, for example")."""
        ...

    def email_example(self, state: S_in, seat: int) -> str:
        """The example move of the turn email: a move ``seat`` can play now, as typed."""
        ...

    def email_pictures(self, state: S_in, seat: int, names: list[str] | None = None,
                       since: list[dict] | None = None) -> list[tuple[str, str, str]]:
        """The pictures of the turn email, carried inline: (name, alt text, SVG), the board first.
        ``since``: the public events since the seat last looked (as ``GET /events`` serves them;
        what the email tells in words), for a picture of what they changed. The alt texts and the
        pictures' words in ``lang=`` where the game speaks it (:func:`in_language`)."""
        ...

    def one_click_moves(self, state: S_in, seat: int) -> list[str]:
        """The moves that get a one-click link in the turn email."""
        ...

    def email_past(self, who: str, text: str) -> str:
        """A move's stored text in the imperative (an older event's) said of ``who`` in the past,
        for the turn email's "since your last turn" lines."""
        ...

    def email_chance(self, chance: list) -> list[str]:
        """What chance brought with a move (its event's ``chance`` outcomes), in words: nothing
        hidden, only what the move revealed to every seat."""
        ...

    def email_round_end(self, state: S_in, seat: int, names: list[str]) -> list[str]:
        """What the end of a round just did to each player and why (taxes, events, conversions),
        in lines of text, for the first email ``seat`` gets after it (a turn email or the results);
        none where nothing is to be said (the default)."""
        ...


class EmailGame(Game[S], EmailTexts[S], Protocol[S]):
    """A game the email channel plays."""


@runtime_checkable
class Search(Protocol[S]):
    """What the game-generic search (``ai.generic``) needs of a game."""

    def determinize(self, view: dict, rng: random.Random) -> S:
        """A full state consistent with what a seat's served ``view`` shows, the hidden part
        sampled with ``rng``."""
        ...

    def search_moves(self, state: S) -> list:
        """The legal moves of the seat to act, as values whose ``str`` is their notation, sorted
        by it and unique (what ``after`` takes)."""
        ...

    def after(self, state: S, seat: int, move: Any, seed: str) -> S:
        """The state after ``seat`` plays ``move`` (one of ``search_moves(state)``), anything it
        reveals drawn from ``seed``; ``state`` is not changed."""
        ...


@runtime_checkable
class Reviewed(Protocol[S_in]):
    """What the review of a finished game (application/review.py, ``review = True``) needs of a
    game besides its AI's estimates (``ai.review_decisions``)."""

    def review_position(self, state: S_in, seat: int) -> str:
        """The seat's position before one of its decisions, in words: only what the seat saw."""
        ...

    def review_bound(self, state: S_in, seat: int) -> float:
        """The most points a decision of ``seat``, or all of them together, may be estimated to have
        given away in the finished game ``state``: what the game could give (no estimate, and no
        total of estimates, exceeds it)."""
        ...


# --- resigning (docs/architecture.md, "Resigning") ---------------------------------------------------
# A resignation is an event of the game's stream, the same for every game, folded here and not by the
# engines: {"type": "SeatResigned", "seat": s} and, when it ends the game (every other seat has
# resigned), "winner": w. It counts one version; the engine's state is otherwise unchanged, unless it
# ends the game (the game's ``end_by_resignation``).
RESIGNED = "SeatResigned"


def fold_resignations(replay, end, events, state=None):
    """``replay(events, state)`` (the engine's fold) with the resignations among ``events`` folded
    in: the engine folds the runs of its own events between them."""
    if not isinstance(events, list):
        events = list(events)
    for ev in events:   # (a plain loop: the common case, no resignation, costs one look per event)
        if ev["type"] == RESIGNED:
            break
    else:
        return replay(events, state)
    s, run = state, []
    for ev in events:
        if ev["type"] != RESIGNED:
            run.append(ev)
            continue
        if run:
            s, run = replay(run, s), []
        s = s.clone()
        s.version += 1
        if ev.get("winner") is not None:
            end(s, ev["winner"])
    return replay(run, s) if run else s


def resign_text(ev: dict, names: list[str] | None = None, w: Words | None = None) -> str:
    """A resignation in words (with the seats' names or markers, as ``event_text`` takes them), in
    the language of the game's words ``w`` (English by default)."""
    w = w or _ENGLISH
    who = lambda i: names[i] if names is not None and 0 <= i < len(names) else w._("Seat {n}", n=i)  # noqa: E731
    if ev.get("winner") is not None:
        return w._("{who} resigned; {winner} wins", who=who(ev["seat"]), winner=who(ev["winner"]))
    return w._("{who} resigned", who=who(ev["seat"]))


def texts_with_resignations(texts, replay, events, start=0, state=None, names=None, machines=frozenset(),
                            w: Words | None = None):
    """``texts(events, start, state, names, machines)`` (a game's ``event_texts``) with the
    resignations among ``events`` said by :func:`resign_text` (in the words ``w``); ``replay``: the
    game's own (which folds resignations)."""
    events = list(events)
    if not any(ev["type"] == RESIGNED for ev in events):
        return texts(events, start, state, names, machines)
    out: list[str] = []
    s, run, first = state, [], 0   # run: the engine's events from index ``first``
    for i, ev in enumerate(events + [None]):
        if ev is not None and ev["type"] != RESIGNED:
            run.append(ev)
            continue
        if run:
            said = texts(run, max(0, start - first), s.clone() if s is not None else None, names, machines)
            out += said
            s, run = replay(run, s), []
        if ev is not None:
            if i >= start:
                out.append(resign_text(ev, names, w))
            s = replay([ev], s)
        first = i + 1
    return out


# --- the games' own words in a language (docs/i18n.md, "The games' own words") ---------------------

_ENGLISH = _words("", "", None)   # the messages themselves


def in_language(game: Any, lang: str | None) -> dict:
    """The keyword a text method of ``game`` takes for the language ``lang``: ``{"lang": lang}`` where
    the game's words speak it (its ``languages``; the pseudo-locale where it speaks more than English),
    else nothing, so that a game that speaks only English is called as it always was. The platform
    calls ``game.email_what(state, **in_language(game, tr.lang))``."""
    langs = getattr(game, "languages", ("en",))
    if not lang or lang == "en" or len(langs) < 2:
        return {}
    return {"lang": lang} if lang in langs or lang == PSEUDO else {}


def score_words(game: Any, lang: str | None) -> str:
    """What the game's scores count (``score_unit``: "points", "VP") in ``lang``, its own word from its
    catalog where its words speak it (the results email's "Ada: 23 Punkte"), else as it is."""
    said = in_language(game, lang)
    return game.say(**said)._(game.score_unit) if said else game.score_unit


def title_in(game: Any, lang: str | None) -> str:
    """The game's title in ``lang``: the title of its edition in that language where its catalog says
    one ("Die Säulen der Erde"; most games keep their name), else its title as registered."""
    said = in_language(game, lang)
    return game.say(**said)._(game.title) if said else game.title


def declared_words(game: Any, lang: str | None) -> Callable[[str], str]:
    """How ``game`` says its declared words (its options', its automa's, its spec's summary: games/setup.py
    ``Say``) in ``lang``: its ``declared`` (:meth:`GameDefaults.declared`: its own catalog's message) where
    it speaks ``lang`` (:func:`in_language`), else the words as declared (English). An empty text stays
    empty."""
    said = getattr(game, "declared", None)
    if said is None or not in_language(game, lang):
        return lambda text: text
    return lambda text: said(text, lang) if text else text


# --- defaults a game class inherits -------------------------------------------------------------------
# Only methods with a sensible default for most games are here; what a game must write itself is in
# the protocols above and nowhere else, so that mypy reports it missing.

class GameDefaults:
    """Defaults for :class:`Game`. They call the game's own methods (``self`` is a :class:`Game`)."""

    min_players: int = 2
    max_players: int = 4
    rules_version: str = "1"
    seat_kinds: tuple[str, ...] = ("human",)
    options: tuple[Option, ...] = ()   # its own options (games/setup.py)
    automa: Automa | None = None       # its own solo opponent (games/setup.py)
    email: bool = False
    review: bool = False
    languages: tuple[str, ...] = ("en",)   # the languages of its own words (:func:`in_language`)
    # its catalogs, where it speaks more than English: (folder, gettext domain) (rules_common/words.py)
    catalogs: tuple[str, str] | None = None

    def say(self, lang: str | None = None) -> Words:
        """The game's own words in ``lang`` (English where it has no catalog for it)."""
        if self.catalogs is None or not lang or lang == "en":
            return _ENGLISH
        return _words(self.catalogs[0], self.catalogs[1], lang)

    def declared(self, text: str, lang: str | None = None) -> str:
        """One of its declared words (an option's, a choice's, its automa's, its spec's summary) in
        ``lang``: the message of its own catalog (marked ``N_`` where it is declared); a game whose
        declared words are said otherwise (a context, the engine's data) says them here."""
        return self.say(lang)._(text) if text else text
    # its rulebook's own nouns ("Architect", "follower"): with its name, title, options and automa the
    # words of its own that the service never speaks (tests/test_game_blind.py reads them)
    terms: tuple[str, ...] = ()

    @property
    def vocabulary(self: Game[Any]) -> frozenset[str]:
        """Every word of the game's own, lower case: its name and title, its options' names, its
        automa's seat kind, name, levels and settings, and its ``terms``."""
        words = {self.name, self.title, *self.terms, *(o.name for o in self.options)}
        automa = self.automa
        if automa is not None:
            words |= {automa.kind, automa.name, *automa.level_names, *(o.name for o in automa.settings)}
        return frozenset(w.lower() for w in words)

    @property
    def own_options(self) -> tuple[str, ...]:
        return own_options(self.options, self.automa)

    @property
    def automa_levels(self) -> tuple[str, ...]:
        return self.automa.level_names if self.automa is not None else ()
    score_unit: str = "points"
    # a verb of the notation in words, for refusals ("take" -> "take a die"); a verb missing here
    # is named as it is
    verb_words: dict[str, str] = {}

    def progress(self: Any, state: Any, lang: str | None = None) -> str:
        """How far the game is: by default its round ("Round 3"); a game says it in its own terms."""
        return self.say(lang)._("Round {n}", n=self.round(state))

    def reason(self: Any, error: Exception, lang: str | None = None) -> str:
        """``error.said(w)`` in the game's words of ``lang`` (English: the error's message as it is)."""
        said = getattr(error, "said", None)
        if not callable(said):
            return str(getattr(error, "message", error))
        return said(self.say(lang))

    def refusal(self: Any, state: Any, seat: int, text: str, message: str, lang: str | None = None) -> str:
        """The parser's reason, and in words the kinds of move the seat to act can make now (none
        but its own legal moves, which it sees anyway: nothing hidden is told). The parser's own
        reason (``message``) is the engine's: said in ``lang`` where it is a
        ``rules_common.errors.Reason`` (an error's ``reason``), else as it is."""
        w = self.say(lang)
        message = _said(message, w)
        verbs: list[str] = []
        for move, _ in self.legal_moves(state):
            verb = move.split()[0]
            if verb not in verbs and verb != "undo":
                verbs.append(verb)
        kinds = [w._(self.verb_words[v]) if v in self.verb_words else v for v in verbs]
        if not kinds:
            return message
        can = (kinds[0] if len(kinds) == 1
               else w._("{first} or {last}", first=", ".join(kinds[:-1]), last=kinds[-1]))
        first = text.split()[0].lower() if text.split() else ""
        if first and first not in verbs:
            return w._("'{first}' is not a move here: you can {can}.", first=first[:30], can=can)
        return w._("{message}. You can {can}.", message=message[:200], can=can)
    resign_mode: str = "stand-in"

    def setup(self: Game[Any], seats: list[dict], options: dict) -> tuple[list[dict], dict, dict]:
        """A new game's seats and options checked against what the game declares (``options``,
        ``automa``: games/setup.py): its own options checked, their defaults filled in, any other
        refused (``bad-options``); a game against its automa (a seat of the automa's kind, or the
        automa's option given) has the automa's number of seats, exactly one of them the automa's,
        which comes first when the automa says so (``bad-seats``), and the automa's settings (its
        default level when none are given) in the options. Returns the seats in their order, the
        options to keep in the game's meta and those for its engine (``new_game``)."""
        try:
            checked = check_options(self.title, self.options, self.automa, options)
        except OptionError as e:
            raise BadSetup("bad-options", e.args[0]) from None   # (a tablepost.i18n.Said: translatable)
        kept, engine = dict(checked.options), dict(checked.engine)
        automa = self.automa
        if automa is None:
            return seats, kept, engine
        bots = [s for s in seats if s.get("kind", "human") == automa.kind]
        if bots or checked.automa is not None:
            if len(seats) != automa.seats or len(bots) != 1:
                raise BadSetup("bad-seats", f"a game against {automa.title} has {automa.seats} seats: one of "
                                            f"kind '{automa.kind}' and {automa.seats - 1} human or 'ai'")
            others = [s for s in seats if s.get("kind", "human") != automa.kind]
            seats = bots + others if automa.first else others + bots
            kept[automa.option] = engine[automa.option] = checked.automa or {"level": automa.default_level}
        return seats, kept, engine

    def decide(self: Game[S], state: S, seat: int, move: str, seed: str) -> list[dict]:
        return self.play(state, seat, move, seed)[0]

    def evolve(self: Game[S], state: S, event: dict) -> S:
        return self.replay([event], state)

    def format(self, move: Any) -> str:
        return str(move)

    def can_undo(self, state: Any) -> bool:
        return False

    def can_snapshot(self, state: Any) -> bool:
        return True

    def actor(self, state: Any) -> int | None:
        return state.actor

    def is_over(self, state: Any) -> bool:
        return state.phase == "over"

    def winner(self, state: Any) -> int | None:
        return state.winner

    def places(self: Game[Any], state: Any) -> list[int]:
        """No tie-break: tied scores share the place (competition ranking, 1, 2, 2, 4)."""
        scores = self.scores(state)
        return [1 + sum(other > mine for other in scores) for mine in scores]

    def phase(self, state: Any) -> str:
        return state.phase

    def fallback_move(self: Game[Any], state: Any) -> str:
        """The first legal move."""
        return self.legal_moves(state)[0][0]

    def automa_seat(self, state: Any) -> int | None:
        return None

    def to_doc(self, state: Any) -> dict:
        return state.to_doc()

    def verify_record(self: Game[Any], text: str, seed: str | None = None) -> list[str]:
        """Replay a record with full checking and, given the seed (or the record's own Seed
        header), check every draw against it and the record's SeedCommitment: the problems found
        (empty: it verifies)."""
        try:
            headers, events, _ = self.replay_record(text)
        except (_errors.EngineError, ValueError) as e:
            return [getattr(e, "message", None) or str(e)]
        seed = seed if seed is not None else headers.get("Seed")
        if seed is None:
            return ["no seed: it is revealed when the game is over"]
        return self.verify_events(events, seed, headers.get("SeedCommitment"))

    def pieces_svg(self, lang: str | None = None) -> str | None:
        return None


class EmailDefaults:
    """Defaults for :class:`EmailTexts` (``email_position_lines`` has none)."""

    email: bool = True

    def email_what(self: Any, state: Any, lang: str | None = None) -> str:
        return self.say(lang)._("your turn")

    def email_moves(self: Any, state: Any, seat: int, names: list[str] | None = None,
                    lang: str | None = None) -> list[tuple[str, str]]:
        return self.legal_moves(state, **in_language(self, lang)) if self.actor(state) == seat else []

    def email_reply_hint(self: Any, lang: str | None = None) -> str:
        return self.say(lang)._("You may send several moves.")

    def email_example(self: EmailGame[S], state: S, seat: int) -> str:
        moves = self.email_moves(state, seat)
        return moves[0][0] if moves else ""

    def email_pictures(self: Any, state: Any, seat: int, names: list[str] | None = None,
                       since: list[dict] | None = None,
                       lang: str | None = None) -> list[tuple[str, str, str]]:
        # "the board of <title>": a title may have its own article ("The Pillars of the Earth")
        said = in_language(self, lang)
        return [("board", self.say(lang)._("The board of {title}", title=self.title),
                 self.board_svg(state, names, **said))]

    def one_click_moves(self, state: Any, seat: int) -> list[str]:
        return []

    def email_past(self, who: str, text: str, lang: str | None = None) -> str:
        return f"{who}: {text}"

    def email_chance(self, chance: list, lang: str | None = None) -> list[str]:
        return []

    def email_round_end(self, state: Any, seat: int, names: list[str], lang: str | None = None) -> list[str]:
        return []


class SearchDefaults:
    """Defaults for :class:`Search`: the served view hides nothing but the seed (so it is the
    state), moves are the legal moves parsed, and ``after`` plays one."""

    def determinize(self: Game[S], view: dict, rng: random.Random) -> S:
        return self.from_doc(view)

    def search_moves(self: Game[S], state: S) -> list:
        return [self.parse(m) for m, _ in self.legal_moves(state)]

    def after(self: Game[S], state: S, seat: int, move: Any, seed: str) -> S:
        return self.play(state, seat, str(move), seed)[1]


class ReviewDefaults:
    """Defaults for :class:`Reviewed`: the position as the game's progress and the points, and the
    bound the best final score of the game (the most any seat got out of it)."""

    def review_position(self: Any, state: Any, seat: int, lang: str | None = None) -> str:
        w, scores = self.say(lang), self.scores(state)
        others = [v for i, v in enumerate(scores) if i != seat]
        said = dict(progress=self.progress(state, **in_language(self, lang)), points=scores[seat],
                    unit=w._(self.score_unit))
        if others:
            return w._("{progress}: you had {points} {unit}, the best other seat {best}", best=max(others),
                       **said)
        return w._("{progress}: you had {points} {unit}", **said)

    def review_bound(self: Game[S], state: S, seat: int) -> float:
        return float(max(1, *self.scores(state)))


# --- the adapter of an engine-backed game ------------------------------------------------------------

def seat_name(names: list[str] | None, seat: int, w: Words | None = None) -> str:
    """A seat's name for the game's words, or "seat N" where the names do not say it."""
    return names[seat] if names and 0 <= seat < len(names) else (w or _ENGLISH)._("seat {n}", n=seat)


class EngineGame(GameDefaults, Generic[S]):
    """What a game whose rules are an engine package of this project forwards to it as it is, so that
    its adapter writes only what is its own. A class sets:

    - ``engine``: the rules package (``new_game``, ``replay``, ``play``, ``parse``, ``legal``,
      ``legal_moves``, ``GameState``, and ``game.advance`` for the search);
    - ``records``: its record module (``write_record``, ``replay_record``, ``verify_events``);
    - ``chance``: its chance module (``seed_commitment``);
    - ``words``: its module of moves in words (``describe(state, move)``);

    and writes :meth:`position` (what a seat may see of a state: the engine's ``view_doc`` by
    default), the scores, the events in words, the pictures and the rest that is the game's own.
    """

    engine: ModuleType
    records: ModuleType
    chance: ModuleType
    words: ModuleType

    def new_game(self, players: int, seed: str, options: dict) -> tuple[S, list[dict]]:
        return self.engine.new_game(players, seed, options)

    def replay(self, events: list[dict], state: S | None = None) -> S:
        # the service's own events (a seat's resignation) folded in between the engine's
        return fold_resignations(self.engine.replay, self.end_by_resignation, events, state)

    def end_by_resignation(self, state: S, winner: int) -> None:
        """End ``state`` because every seat but ``winner`` resigned: each game writes its own."""
        raise NotImplementedError

    def from_doc(self, doc: dict) -> S:
        return self.engine.GameState.from_doc(doc)

    def play(self, state: S, seat: int, move: str, seed: str) -> tuple[list[dict], S]:
        return self.engine.play(state, seat, move, seed=seed)

    def legal_moves(self, state: S, lang: str | None = None) -> list[tuple[str, str]]:
        kw = {"lang": lang} if lang else {}   # (given only to a game whose words speak it: in_language)
        return [(m, self.words.describe(state, m, **kw)) for m in self.engine.legal_moves(state)]

    def parse(self, text: str) -> Any:
        return self.engine.parse(text)

    def search_moves(self, state: S) -> list:
        return [m for _, m in sorted({str(m): m for m in self.engine.legal(state)}.items())]

    def after(self, state: S, seat: int, move: Any, seed: str) -> S:
        s = state.clone()  # type: ignore[attr-defined]
        self.engine.game.advance(s, seat, move, seed)
        return s

    def position(self, state: S, seat: int | None) -> dict:
        """The position document as ``seat`` (None: a spectator) may see it, nothing hidden."""
        return self.engine.view_doc(state, seat)

    def view(self, state: S, seat: int | None, lang: str | None = None) -> dict:
        """:meth:`position`, with who views it and who is to act (every game's view says both).
        ``lang`` (given only to a game that speaks it, :func:`in_language`): the position's words in
        it, where the game's ``position`` takes a ``lang`` (The Pillars of the Earth's round summary)."""
        takes = lang is not None and "lang" in inspect.signature(self.position).parameters
        doc = self.position(state, seat, lang=lang) if takes else self.position(state, seat)   # type: ignore[call-arg]
        actor = self.actor(state)
        doc["viewer"] = seat
        doc["to_act"] = [] if actor is None else [actor]
        return doc

    def seed_commitment(self, seed: str) -> str:
        return self.chance.seed_commitment(seed)

    def write_record(self, events: list[dict], headers: dict[str, str]) -> str:
        return self.records.write_record(events, headers)

    def replay_record(self, text: str) -> tuple[dict[str, str], list[dict], S]:
        return self.records.replay_record(text)

    def verify_events(self, events: list[dict], seed: str, commitment: str | None) -> list[str]:
        return self.records.verify_events(events, seed, commitment)
