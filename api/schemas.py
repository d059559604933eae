"""Request and response schemas (marshmallow). They are the API's contract and its documentation."""
from __future__ import annotations

import unicodedata

import marshmallow as ma
from marshmallow import fields, validate

import games
from application.deadlines import MAX_QUIET_HOURS, quiet_length, valid_tz
from application.game_service import EVENTS_PAGE, MAX_EVENTS_PAGE
from application.rating_service import POOLS
from application.seats import AI_LEVELS
from .review_schemas import LobbyPlayer, Reliability


class Text(fields.String):
    """A string of Unicode text. JSON can carry lone UTF-16 surrogates (``"\\udc80"``), which are
    not text: they could not be stored, hashed or exported, so such a value is a 422."""

    default_error_messages = {"not_text": "Not valid Unicode text (a lone surrogate)."}

    def _deserialize(self, value, attr, data, **kwargs):
        out = super()._deserialize(value, attr, data, **kwargs)
        try:
            out.encode("utf-8")
        except UnicodeEncodeError:
            raise self.make_error("not_text") from None
        return out


class TextEmail(fields.Email, Text):
    pass


# Characters no text field of a request may hold (Unicode categories): Cc controls (CR, LF, NUL, ESC,
# TAB, DEL, NEL...), Cf format characters (bidi overrides and isolates such as U+202E and
# U+2066-2069, zero-width characters, the BOM), Zl and Zp line and paragraph separators. They break
# the lines of game records and email headers, or make a name display as something it is not.
FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")
# What a name needs at least one of: a letter, number, punctuation or symbol (not only spaces or marks)...
VISIBLE_CATEGORIES = ("L", "N", "P", "S")
# ...other than these, which are letters or symbols by category but show as nothing: the Hangul
# fillers, the Braille blank, the Khmer inherent vowels, the Mongolian vowel separator.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e")


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be a text field of a request (None if it can): a lone UTF-16 surrogate
    (``"\\udc80"``: not text, it could not be stored, hashed or exported), or a control, format or
    line-separator character. The one check of every text field (:class:`Line`, :class:`Name`)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "Not valid Unicode text (a lone surrogate)."
    for ch in value:
        if unicodedata.category(ch) in FORBIDDEN_CATEGORIES:
            return ("Must not contain control, format or line-separator characters (Unicode Cc, Cf, Zl, Zp), "
                    f"found U+{ord(ch):04X}.")
    return None


def is_visible(value: str) -> bool:
    """Whether ``value``, normalised (NFKC), shows at least one character: a letter, number,
    punctuation or symbol other than a blank one (:data:`BLANKS`)."""
    return any(unicodedata.category(ch)[0] in VISIBLE_CATEGORIES and ch not in BLANKS
               for ch in unicodedata.normalize("NFKC", value))


class Line(Text):
    """One line of text in a request (an id, a URL, a time zone, a choice): :func:`text_problem`."""

    def _deserialize(self, value, attr, data, **kwargs):
        out = super()._deserialize(value, attr, data, **kwargs)
        problem = text_problem(out)
        if problem is not None:
            raise ma.ValidationError(problem)
        return out


class Name(Line):
    """A name shown to people (a seat, a tournament, an entrant) or written into records and
    emails: any printable text that shows something (not only spaces, fillers or marks)."""

    default_error_messages = {
        "invisible": "Must show at least one letter, number, punctuation mark or symbol."}

    def _deserialize(self, value, attr, data, **kwargs):
        out = super()._deserialize(value, attr, data, **kwargs)
        if not is_visible(out):
            raise self.make_error("invisible")
        return out


# Request schemas use these strict fields (issue 13): marshmallow's own take "2", 2.0, 2.5
# (truncated) and true as integers, and 0 or "yes" as booleans. Response schemas only dump and
# keep marshmallow's fields.

class Integer(fields.Integer):
    """A JSON integer, nothing else: not ``"2"``, ``2.0``, ``2.5``, ``1e308`` or ``true``."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _validated(self, value):
        if isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class Float(fields.Float):
    """A JSON number (integer or not), nothing else: not ``"2"`` or ``true``; no NaN or infinity."""

    def _validated(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class Boolean(fields.Boolean):
    """``true`` or ``false``, nothing else: not ``0``, ``1``, ``"true"`` or ``"yes"``."""

    def _deserialize(self, value, attr, data, **kwargs):
        if value is True or value is False:
            return value
        raise self.make_error("invalid", input=value)


class QueryInteger(fields.Integer):
    """An integer query argument: plain ASCII decimal digits (not ``+1``, `` 1``, ``1_0``, ``1.0``,
    ``1e3`` or other scripts' digits, all of which Python's ``int`` would take or round)."""

    def _validated(self, value):
        if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


# The largest version a client may name: Redis stream ids (and so versions) stop below 2**64.
MAX_VERSION = 2**63 - 1


class Base(ma.Schema):
    class Meta:
        ordered = True


def _raise_tz(value):
    raise ma.ValidationError(f"{value!r} is not an IANA time zone name (e.g. Europe/Berlin)")


# --- the position document (docs/tiletum-state.md), typed ------------------------------------------------
# Closed objects (``additionalProperties: false`` in the document; said explicitly here, not left to
# marshmallow's default ``unknown``): a field the engine adds without a schema here fails
# tests/test_api_contract.py, which validates served documents against the served document and
# checks that dumping through these schemas drops nothing.

class Closed(Base):
    class Meta:
        ordered = True
        unknown = ma.RAISE


PHASES = ["action", "king", "over"]
CARCASSONNE_PHASES = ["play", "over"]
GAMES = list(games.NAMES)   # every registered game (games.GAMES), by name
PILLARS_PHASES = ["cards", "builders", "placing", "actions", "over"]
# any game's phase, each once, in the registry's order
ANY_PHASE = list(dict.fromkeys(p for game in games.GAMES.values() for p in game.phases))
# what the API says of each game's seats, from the registry ("tiletum (2-4 seats), ...")
GAME_SEATS = ", ".join(f"{g.name} ({g.min_players}-{g.max_players} seats)" for g in games.GAMES.values())
ACTIONS = ["architect", "merchant", "character", "contract", "king", "joker"]
SOLO_LEVELS = ["priest", "deacon", "bishop"]
SEAT_KINDS = ["human", "cardinalbot", "bot", "ai", "open"]
GAME_STATUSES = ["active", "finished", "waiting", "cancelled"]
EVENT_TYPES = ["GameStarted", "MovePlayed", "MoveUndone", "SeatResigned"]
AGENDA_ENTRIES = ["frame", "fx", "choice"]
CHOICE_KINDS = ["action_tile", "joker", "resource", "die_resource", "any_action", "move", "move_town",
                "move_place", "place_here", "place_anywhere", "teleport", "building", "building_chars",
                "king_tile"]
SOLO_STAGES = ["die", "coffers", "joker", "action", "tasks"]
CHALLENGES = ["very_special_friends", "resourceful_clergy", "whispers_in_the_kings_ear",
              "ecclesiastical_income", "visitors_to_the_curia", "deep_coffers", "favor_at_the_court",
              "ready_for_action"]
TO_ACT = {"description": "the seats whose decision it is now (one seat, or none when the game is over); "
                         "the same name and shape in the game summary, the position and the legal moves "
                         "(docs/api-changes.md)", "example": [0]}
DEPRECATED_ACTOR = {"deprecated": True, "description": "deprecated since API 2.0 (docs/api-changes.md): use "
                                                       "`to_act`; the seat whose decision it is, null when "
                                                       "over"}


def _seat_list(**kw):
    return fields.List(fields.Integer(), **kw)


def _id_or_null(**kw):
    return fields.String(allow_none=True, **kw)


class EngineSoloOptions(Closed):
    level = fields.String(validate=validate.OneOf(SOLO_LEVELS))
    challenges = fields.List(fields.String(validate=validate.OneOf(CHALLENGES)))


class EngineOptions(Closed):
    action_tiles = fields.String(validate=validate.OneOf(["printed", "shuffled"]))
    solo = fields.Nested(EngineSoloOptions, metadata={"description": "present in a solo game"})


class Piles(Closed):
    bonus = fields.Integer(required=True, metadata={"description": "face-down Bonus tiles left (a count)"})
    character = fields.Integer(required=True)
    contract = fields.Integer(required=True)


class KingMarker(Closed):
    pos = fields.Integer(required=True, metadata={"description": "index on the King track (10 is 0 VP)"})
    seq = fields.Integer(required=True, metadata={"description": "stacking order: higher is nearer the top"})


class AgendaEntry(Closed):
    """One entry of the agenda: a frame, an fx or a choice (``t``); which of the other fields it
    has depends on ``t`` and, for a choice, on ``kind`` (docs/tiletum-state.md, The agenda)."""
    t = fields.String(required=True, validate=validate.OneOf(AGENDA_ENTRIES))
    seat = fields.Integer(required=True)
    action = fields.String(validate=validate.OneOf(ACTIONS), metadata={
        "description": "frame: its Action; choice action_tile: the die's Action"})
    ap = fields.Integer(metadata={"description": "frame: AP left; choice any_action: the extra Action's AP"})
    main = fields.Boolean(metadata={"description": "frame: the Action of the die taken this turn"})
    # An open object: a Nested schema would dump only declared fields (every atom came out as {}).
    atoms = fields.List(fields.Dict(keys=fields.String()), metadata={
        "description": "fx: effects not yet applied; each an effect atom (tiletum/data/README.md) whose keys "
                       "depend on the effect, e.g. {\"any\": 1}, {\"vp\": 5}, {\"action\": \"contract\", "
                       "\"ap\": 2}"})
    kind = fields.String(validate=validate.OneOf(CHOICE_KINDS),
                         metadata={"description": "choice: which decision"})
    tile = fields.String(metadata={"description": "choice action_tile / king_tile: the Bonus tile"})
    n = fields.Integer(
        metadata={"description": "choice resource: Resources still to choose; move: moves left"})
    piece = fields.String(validate=validate.OneOf(["merchant", "architect"]))
    what = fields.String(validate=validate.OneOf(["house", "pillar"]))
    moved = fields.Boolean()
    placed = fields.Boolean()
    left = fields.List(fields.String(), metadata={"description": "choice building_chars: Characters left"})


class Turn(Closed):
    seat = fields.Integer(required=True)
    die = _id_or_null(required=True,
                      metadata={"description": "the die taken this turn, e.g. G4; null before take"})
    exchanged = fields.Boolean(required=True)
    override = _id_or_null(required=True,
                           metadata={"description": "the Resource chosen for the die by a Helper"})
    action = fields.String(validate=validate.OneOf(ACTIONS), metadata={
        "description": "solo games, the Cardinalbot's turn: the Action its die chose"})


class Resources(Closed):
    gold = fields.Integer(required=True)
    food = fields.Integer(required=True)
    wool = fields.Integer(required=True)
    stone = fields.Integer(required=True)
    iron = fields.Integer(required=True)


class Building(Closed):
    rooms = fields.List(_id_or_null(), required=True,
                        metadata={"description": "Character per floor, or null"})
    crest = _id_or_null(required=True)


class ApBonus(Closed):
    architect = fields.Integer()
    merchant = fields.Integer()
    character = fields.Integer()
    contract = fields.Integer()
    king = fields.Integer()
    joker = fields.Integer()


class SeatState(Closed):
    seat = fields.Integer(required=True)
    resources = fields.Nested(Resources, required=True)
    score = fields.Integer(required=True)
    storehouse = fields.List(fields.String(), required=True)
    buildings = fields.List(fields.Nested(Building), required=True)
    contracts = fields.List(fields.String(), required=True)
    houses = fields.Integer(required=True)
    pillars = fields.Integer(required=True)
    roofs = fields.List(fields.Boolean(), required=True)
    merchant = fields.String(required=True)
    architect = fields.String(required=True)
    dice = fields.List(fields.String(), required=True)
    ap_bonus = fields.Nested(ApBonus, required=True, metadata={"description": "Action -> bonus AP"})
    cathedrals = fields.List(fields.String(), required=True)


class FinalScore(Closed):
    """One seat's final scoring (docs/tiletum-state.md, `final`)."""
    houses = fields.Integer(required=True, metadata={"description": "Houses on the map"})
    pillars = fields.Integer(required=True, metadata={"description": "Pillars on the map"})
    houses_x_pillars = fields.Integer(required=True, metadata={"description": "their product: that many VP"})
    completed_buildings = fields.Integer(required=True)
    buildings_vp = fields.Integer(required=True, metadata={"description": "VP for the Completed Buildings"})
    resources = fields.Integer(required=True, metadata={"description": "Resources left"})
    resources_vp = fields.Integer(required=True, metadata={"description": "1 VP per 4 Resources"})
    before = fields.Integer(required=True, metadata={"description": "the score before the final scoring"})
    total = fields.Integer(required=True, metadata={"description": "the final score"})
    contracts_fulfilled_at_end = fields.List(fields.String(), metadata={
        "description": "solo, the Cardinalbot: Contracts it fulfils at the end"})
    contracts_vp = fields.Integer(metadata={"description": "solo, the Cardinalbot: their VP"})


class SoloAct(Closed):
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    ap = fields.Integer(required=True)
    stage = fields.Integer(required=True)
    discarded = fields.Boolean(required=True)
    unready = fields.Boolean()


class SoloBoard(Closed):
    """The Cardinalbot's board and turn in a solo game (tiletum/solo.py)."""
    bot = fields.Integer(required=True)
    human = fields.Integer(required=True)
    level = fields.String(required=True, validate=validate.OneOf(SOLO_LEVELS))
    challenges = fields.List(fields.String(validate=validate.OneOf(CHALLENGES)), required=True)
    decrees = fields.List(fields.String(), required=True)
    decree_pos = fields.Integer(required=True)
    roll = fields.List(fields.Integer(), required=True, allow_none=True)
    columns = fields.List(fields.List(_id_or_null()), required=True)
    column_ap = fields.List(fields.Integer(), required=True)
    crests = fields.List(_id_or_null(), required=True)
    inactive = fields.List(fields.String(), required=True)
    supply = fields.List(fields.String(), required=True)
    contracts = fields.List(fields.String(), required=True)
    fulfilled = fields.List(fields.String(), required=True)
    stage = fields.String(required=True, allow_none=True, validate=validate.OneOf(SOLO_STAGES))
    act = fields.Nested(SoloAct, required=True, allow_none=True)
    fulfils = fields.Integer(required=True)


class Position(Closed):
    """The position document (docs/tiletum-state.md) as a viewer sees it: face-down piles and face-down
    Corruption tokens are counts."""
    format = fields.String(required=True, validate=validate.OneOf(["tiletum-position/1"]))
    players = fields.Integer(required=True)
    options = fields.Nested(EngineOptions, required=True)
    version = fields.Integer(required=True)
    round = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    cycle = fields.Integer(required=True)
    turn_pos = fields.Integer(required=True)
    turn_order = _seat_list(required=True)
    to_act = _seat_list(required=True, metadata=TO_ACT)
    actor = fields.Integer(allow_none=True, required=True, metadata=DEPRECATED_ACTOR)
    viewer = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "your seat; null: spectator"})
    action_tiles = fields.List(fields.String(validate=validate.OneOf(ACTIONS)), required=True)
    wheel = fields.List(fields.String(), required=True)
    action_bonus = fields.Dict(keys=fields.String(validate=validate.OneOf(ACTIONS)), values=_id_or_null(),
                               required=True)
    king_bonus = _id_or_null(required=True)
    map_bonus = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True,
                            metadata={"description": "town -> Bonus tiles lying there"})
    houses = fields.Dict(keys=fields.String(), values=fields.List(fields.Integer(allow_none=True)),
                         required=True,
                         metadata={"description": "town -> seat on each House space (null: empty)"})
    pillars = fields.Dict(keys=fields.String(), values=_seat_list(), required=True,
                          metadata={"description": "Cathedral town -> seats with a Pillar there"})
    cathedral_cost = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    cathedral_stack = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    fair_towns = fields.List(fields.String(), required=True)
    fair_tiles = fields.List(fields.String(), required=True)
    fairs_scored = fields.Integer(required=True)
    contract_offer = fields.List(_id_or_null(), required=True)
    character_offer = fields.List(_id_or_null(), required=True)
    piles = fields.Nested(Piles, required=True)
    corruption_pool = fields.Integer(required=True,
                                     metadata={"description": "Corruption tokens still face down"})
    corruption_revealed = fields.List(fields.String(), required=True)
    box = fields.List(fields.String(), required=True)
    king = fields.List(fields.Nested(KingMarker), required=True, metadata={"description": "one per seat"})
    king_counter = fields.Integer(required=True)
    agenda = fields.List(fields.Nested(AgendaEntry), required=True, metadata={"description": "top last"})
    turn = fields.Nested(Turn, required=True, allow_none=True, metadata={
        "description": "null in the King phase and when the game is over"})
    seats = fields.List(fields.Nested(SeatState), required=True)
    final = fields.Dict(keys=fields.String(), values=fields.Nested(FinalScore), required=True,
                        allow_none=True,
                        metadata={"description": "null until the game ends; then seat (as a string) -> final "
                                "scoring"})
    winner = fields.Integer(allow_none=True, required=True)
    solo = fields.Nested(SoloBoard, required=True, allow_none=True, metadata={
        "description": "the Cardinalbot's board in a solo game, else null"})
    reveals = fields.Integer(allow_none=True, required=True, metadata={
        "description": "reveals so far, the setup included: the next reveal's outcomes are keyed by it. "
                       "null in a game started under rules version 1 (keyed by version)"})


class CarcassonneTile(Closed):
    x = fields.Integer(required=True)
    y = fields.Integer(required=True)
    tile = fields.String(required=True, metadata={"description": "the tile's letter (docs/carcassonne.md)"})
    rot = fields.Integer(required=True, validate=validate.OneOf([0, 90, 180, 270]))


class CarcassonneFollower(Closed):
    seat = fields.Integer(required=True)
    x = fields.Integer(required=True)
    y = fields.Integer(required=True)
    role = fields.String(required=True, validate=validate.OneOf(["thief", "knight", "monk", "farmer"]))
    spot = fields.String(required=True,
                         metadata={"description": "canonical spot: N E S W, NE SE SW NW; '' for a monk"})


class CarcassonneBreakdown(Closed):
    road = fields.Integer(required=True)
    city = fields.Integer(required=True)
    cloister = fields.Integer(required=True)
    farm = fields.Integer(required=True)


class CarcassonneScoring(Closed):
    kind = fields.String(required=True, validate=validate.OneOf(["road", "city", "cloister", "farm"]))
    points = fields.Integer(required=True)
    seats = _seat_list(required=True)
    tiles = fields.Integer(required=True)
    shields = fields.Integer(required=True)
    complete = fields.Boolean(required=True)


class CarcassonneFinal(Closed):
    """The final scoring (docs/carcassonne.md, `final`)."""
    breakdown = fields.List(fields.Nested(CarcassonneBreakdown), required=True, metadata={
        "description": "per seat: the points of the final scoring by kind"})
    scorings = fields.List(fields.Nested(CarcassonneScoring), required=True)


class CarcassonnePosition(Closed):
    """A Carcassonne position document (docs/carcassonne.md) as a viewer sees it. It holds nothing
    hidden: the face-down tiles are only their public mix, as counts, never their order."""
    format = fields.String(required=True, validate=validate.OneOf(["carcassonne-position/1"]))
    game = fields.String(required=True, validate=validate.OneOf(["carcassonne"]))
    players = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata={"description": "none yet"})
    rules = fields.String(required=True, validate=validate.OneOf(["1", "2"]), metadata={
        "description": "the rules version the game started under, and is played to its end under"})
    version = fields.Integer(required=True)
    reveals = fields.Integer(required=True, metadata={"description": "reveals so far: keys the next draw"})
    phase = fields.String(required=True, validate=validate.OneOf(CARCASSONNE_PHASES))
    actor = fields.Integer(allow_none=True, required=True, metadata=DEPRECATED_ACTOR)
    to_act = _seat_list(required=True, metadata=TO_ACT)
    viewer = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "your seat; null: spectator"})
    tile = fields.String(allow_none=True, required=True,
                         metadata={"description": "the tile in hand, revealed to all"})
    scores = fields.List(fields.Integer(), required=True)
    supply = fields.List(fields.Integer(), required=True,
                         metadata={"description": "followers off the board, per seat"})
    board = fields.List(fields.Nested(CarcassonneTile), required=True,
                        metadata={"description": "in the order placed"})
    followers = fields.List(fields.Nested(CarcassonneFollower), required=True)
    pile = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True, metadata={
        "description": "tile letter -> how many are face down (their order does not exist until drawn)"})
    pile_size = fields.Integer(required=True)
    set_aside = fields.List(fields.String(), required=True,
                            metadata={"description": "drawn tiles that fit nowhere"})
    final = fields.Nested(CarcassonneFinal, required=True, allow_none=True, metadata={
        "description": "null until the game ends"})
    winners = _seat_list(required=True)
    winner = fields.Integer(allow_none=True, required=True)


def _per_seat(field, description: str, **kw):
    return fields.List(field, required=True, metadata={"description": f"per seat: {description}"}, **kw)


class PillarsCubes(Closed):
    stone = fields.Integer(required=True)
    wood = fields.Integer(required=True)
    sand = fields.Integer(required=True)
    metal = fields.Integer(required=True)


class PillarsMarket(Closed):
    stone = fields.Integer(required=True)
    wood = fields.Integer(required=True)
    sand = fields.Integer(required=True)


class PillarsSpots(Closed):
    """Per field, the seat of the master builder on each spot (null: free)."""
    archbishop = fields.List(fields.Integer(allow_none=True), required=True)
    kingsbridge = fields.List(fields.Integer(allow_none=True), required=True)
    priory = fields.List(fields.Integer(allow_none=True), required=True)
    king = fields.List(fields.Integer(allow_none=True), required=True)
    shiring = fields.List(fields.Integer(allow_none=True), required=True)
    castle = fields.List(fields.Integer(allow_none=True), required=True)
    market = fields.List(fields.Integer(allow_none=True), required=True)
    cathedral = fields.List(fields.Integer(allow_none=True), required=True)


class PillarsFinal(Closed):
    vp = fields.List(fields.Integer(), required=True)
    gold = fields.List(fields.Integer(), required=True)


class PillarsPosition(Closed):
    """A Pillars of the Earth position document (docs/pillars.md, "Position document") as a viewer
    sees it. It holds nothing hidden: what is face down is only the sorted list of what is left,
    and the master builders in the bag are counts per seat, never an order."""
    format = fields.String(required=True, validate=validate.OneOf(["pillars-position/1"]))
    game = fields.String(required=True, validate=validate.OneOf(["pillars"]))
    players = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata={"description": "none yet"})
    rules = fields.String(required=True, validate=validate.OneOf(["1"]), metadata={
        "description": "the rules version the game started under, and is played to its end under"})
    version = fields.Integer(required=True)
    reveals = fields.Integer(required=True, metadata={"description": "reveals so far: keys the next draw"})
    round = fields.Integer(required=True, metadata={"description": "1 to 6"})
    phase = fields.String(required=True, validate=validate.OneOf(PILLARS_PHASES))
    step = fields.Integer(required=True,
                          metadata={"description": "phase III: the next step to resolve (0-13)"})
    actor = fields.Integer(allow_none=True, required=True, metadata=DEPRECATED_ACTOR)
    to_act = _seat_list(required=True, metadata=TO_ACT)
    viewer = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "your seat; null: spectator"})
    start = fields.Integer(required=True, metadata={"description": "the start player"})
    king_metal = fields.Integer(required=True,
                                metadata={"description": "1 while the metal lies at the King's Court"})
    cost = fields.Integer(required=True, metadata={"description": "the cost marker: what placing a master "
                                                                  "builder costs now"})
    drawn = fields.Integer(allow_none=True, required=True,
                           metadata={"description": "the seat whose drawn master builder waits"})
    offer = fields.Boolean(required=True, metadata={"description": "the start player decides keep or redraw"})
    redraw_used = fields.Boolean(required=True)
    event = fields.String(allow_none=True, required=True, metadata={"description": "this round's event card"})
    tax = fields.Integer(allow_none=True, required=True, metadata={"description": "this round's tax die"})
    market_i = fields.Integer(required=True, metadata={"description": "whose turn at the market (into "
                                                                      "market_order)"})
    limit = _per_seat(fields.Integer(), "master builders this round")
    limit_next = _per_seat(fields.Integer(), "master builders next round")
    gold = _per_seat(fields.Integer(), "gold (0-30)")
    vp = _per_seat(fields.Integer(), "victory points (the score)")
    grey = _per_seat(fields.Integer(), "grey workers this round")
    grey_next = _per_seat(fields.Integer(), "grey workers next round")
    taken = _per_seat(fields.List(fields.String()), "resource cards taken this round")
    wool = _per_seat(fields.Integer(), "workers in the wool mill")
    passed = _per_seat(fields.Boolean(), "passed in phase I")
    pool = fields.List(fields.String(), required=True, metadata={"description": "phase I's card pool"})
    shiring = fields.List(fields.String(allow_none=True), required=True,
                          metadata={"description": "the craftsmen at Shiring, by spot"})
    kingsbridge = fields.List(fields.String(allow_none=True), required=True,
                              metadata={"description": "the privileges at Kingsbridge, by spot"})
    privilege_deck = fields.List(fields.String(), required=True, metadata={
        "description": "privileges still face down, sorted (no order exists)"})
    event_deck = fields.List(fields.String(), required=True,
                             metadata={"description": "events still face down, sorted (no order exists)"})
    stack = fields.List(fields.String(), required=True,
                        metadata={"description": "craftsmen of later rounds, sorted (no order exists)"})
    field = fields.Nested(PillarsCubes, required=True, metadata={"description": "cubes on the board (below "
                                                                                 "0: owed)"})
    market = fields.Nested(PillarsMarket, required=True)
    bag = _per_seat(fields.Integer(), "master builders in the bag (a count: their order does not exist until "
                                      "drawn)")
    passers = _seat_list(required=True, metadata={"description": "passed master builders, in pass order"})
    protected = _seat_list(required=True,
                           metadata={"description": "seats spared this round's negative event"})
    queue = fields.List(fields.List(fields.Raw()), required=True, metadata={
        "description": "phase III decisions waiting: [kind, seat] or [\"shiring\", seat, card]"})
    market_order = _seat_list(required=True)
    traded = _per_seat(fields.List(fields.String()), "+wood bought, -stone sold this round")
    craftsmen = _per_seat(fields.List(fields.String()), "craftsman ids")
    privileges = _per_seat(fields.List(fields.String()), "permanent and unused once-only privileges")
    resources = _per_seat(fields.Nested(PillarsCubes), "resources")
    spots = fields.Nested(PillarsSpots, required=True)
    used = _per_seat(fields.Dict(keys=fields.String(), values=fields.Integer()),
                     "craftsman id -> times worked this round")
    final = fields.Nested(PillarsFinal, required=True, allow_none=True, metadata={
        "description": "null until the game ends"})
    winners = _seat_list(required=True)
    winner = fields.Integer(allow_none=True, required=True)


# The state endpoint serves the position document of the game's own kind, told apart by `format`:
# each registered game's position schema, found by the format it declares (games.Rules.position_format).
POSITION_SCHEMAS = {schema.__name__: schema for schema in (Position, CarcassonnePosition, PillarsPosition)}


def _position_schema(game) -> str:
    for name, schema in POSITION_SCHEMAS.items():
        if schema().fields["format"].validate.choices == [game.position_format]:
            return name
    raise RuntimeError(f"no position schema for {game.title} (format {game.position_format}): "
                       "a hosted game needs one (docs/adding-a-game.md)")


ANY_POSITION = {"oneOf": [{"$ref": f"#/components/schemas/{_position_schema(g)}"}
                          for g in games.GAMES.values()]}


class SeatIn(Base):
    name = Name(load_default=None, validate=validate.Length(1, 60), metadata={
        "example": "Alice",
        "description": "required, except for a bot account's seat (default: the bot's name)"})
    email = TextEmail(load_default=None, metadata={"description": "where turn emails go (optional)"})
    kind = Line(load_default="human", validate=validate.OneOf(SEAT_KINDS),
                metadata={"description": "who plays the seat: a person, the Cardinalbot (solo games: "
                                         "exactly one cardinalbot seat and one human or ai seat), a "
                                         "registered bot account (`bot`; docs/bots.md), the AI player "
                                         "(`ai`; docs/ai.md), or a player still to come (`open`: the game "
                                         "waits in the lobby until every open seat is taken; docs/lobby.md)"})
    bot = Line(load_default=None, validate=validate.Length(1, 40), metadata={
        "description": "kind `bot` only: the id of the bot account (POST /api/v1/bots) that plays this seat"})
    owner_key = Line(validate=validate.Length(1, 100), metadata={
        "description": "kind `bot` only: the bot's owner key (its owner seats it), or else `invitation`"})
    invitation = Line(validate=validate.Length(1, 40), metadata={
        "description": "kind `bot` only: an invitation the bot accepted (POST "
                       "/api/v1/bots/{id}/invitations); each seats one game"})
    level = Line(validate=validate.OneOf(list(AI_LEVELS)), metadata={
        "description": "an ai seat's level (default medium; `master` thinks as long as a correspondence move "
                       "may take, TILETUM_AI_MASTER_SECONDS a decision, on every core of the AI worker; "
                       "docs/ai.md)"})
    tz = Line(load_default=None, validate=lambda v: valid_tz(v) or _raise_tz(v), metadata={
        "description": "the player's IANA time zone (e.g. Europe/Berlin): deadlines in emails are shown in "
                       "it (UTC when not given)", "example": "Europe/Berlin"})


    @ma.validates_schema
    def _bot_or_name(self, data, **kw):
        if data.get("kind") == "open":
            for field in ("name", "email", "bot", "owner_key", "invitation", "level", "tz"):
                if data.get(field) is not None:
                    raise ma.ValidationError("an open seat names nobody yet: its player joins from the lobby",
                                             field)
        elif data.get("kind") == "bot":
            if not data.get("bot"):
                raise ma.ValidationError("a seat of kind 'bot' names its bot account", "bot")
        else:
            for field in ("bot", "owner_key", "invitation"):
                if data.get(field) is not None:
                    raise ma.ValidationError("only a seat of kind 'bot' names a bot account", field)
            if data.get("name") is None:
                raise ma.ValidationError("Missing data for required field.", "name")


class SoloOptions(Base):
    class Meta:
        unknown = ma.RAISE
    level = Line(validate=validate.OneOf(["priest", "deacon", "bishop"]), metadata={
        "description": "Cardinal Priest (1 random Challenge), Deacon (3) or Bishop (5); default deacon"})
    challenges = fields.List(Line(validate=validate.OneOf([
        "very_special_friends", "resourceful_clergy", "whispers_in_the_kings_ear", "ecclesiastical_income",
        "visitors_to_the_curia", "deep_coffers", "favor_at_the_court", "ready_for_action"])),
        validate=validate.Length(0, 8),
        metadata={"description": "an explicit list of Challenge cards instead of a level"})


def _quiet_window(value):
    """The core's rule (application/deadlines.py): a quiet window leaves some hours of each day counted."""
    if (len(value) == 2 and all(isinstance(h, int) for h in value)
            and not 1 <= quiet_length(value) <= MAX_QUIET_HOURS):
        raise ma.ValidationError(f"a quiet window leaves out 1 to {MAX_QUIET_HOURS} hours of a day: "
                                 f"start and end differ and at least {24 - MAX_QUIET_HOURS} hours count")


class TimeControl(Base):
    class Meta:
        unknown = ma.RAISE
    days_per_move = Float(load_default=3, validate=validate.Range(min=0.01, max=60),
                                 metadata={"description": "time for each turn, in days of counted time"})
    pause_weekends = Boolean(load_default=False,
                             metadata={"description": "Saturdays and Sundays (UTC) do not count"})
    quiet_hours = fields.List(
        Integer(validate=validate.Range(0, 23)), validate=[validate.Length(2, 2), _quiet_window],
        allow_none=True, load_default=None,
        metadata={"description": f"[start, end) UTC hours that do not count, e.g. [22, 7]: start and end "
                                 f"differ and at most {MAX_QUIET_HOURS} hours are quiet"})
    vacation_days = Float(load_default=14, validate=validate.Range(min=0, max=365),
                                 metadata={"description": "each player's vacation allowance"})
    reminders_hours = fields.List(Float(validate=validate.Range(min=0.1, max=24 * 60)), load_default=[24, 2],
                                  validate=validate.Length(0, 5),
                                  metadata={"description": "reminder emails before the deadline"})


class TimeoutPolicy(Base):
    class Meta:
        unknown = ma.RAISE
    mode = Line(load_default="stand-in", validate=validate.OneOf(["stand-in", "drop"]), metadata={
        "description": "stand-in: the stand-in plays a late turn and the player keeps the seat; drop: after "
                       "drop_after missed deadlines the stand-in plays the seat for the rest of the game"})
    drop_after = Integer(load_default=3, validate=validate.Range(min=1, max=50))


class GameOptions(Base):
    class Meta:
        unknown = ma.RAISE
    solo = fields.Nested(SoloOptions, metadata={"description": "a solo game against the Cardinalbot"})
    time_control = fields.Nested(TimeControl, metadata={"description": "deadlines (docs/pbem.md)"})
    timeout = fields.Nested(TimeoutPolicy, metadata={"description": "what happens when a deadline passes"})
    action_tiles = Line(load_default="printed", validate=validate.OneOf(["printed", "shuffled"]),
                        metadata={"description": "Action tiles in printed order (first game) or shuffled"})
    seed = Name(validate=validate.Length(1, 200), metadata={
        "description": "fixed seed: only on a server run with --allow-seeded-games (tests, demos), else 422"})
    rated = Boolean(
        metadata={"description": "the game counts for ratings (default true; docs/tournaments.md)"})
    private = Boolean(metadata={"description": "listed nowhere (not in the lobby, not among the games in "
                                               "progress); a game with open seats is then joinable only with "
                                               "its invitation link (docs/lobby.md)"})
    waiting_days = Float(validate=validate.Range(min=0.0007, max=60), metadata={
        "description": "a game with open seats: cancelled when its seats are not all taken within this many "
                       "days (default 7; at least about a minute)"})
    rating_range = fields.List(Integer(validate=validate.Range(0, 4000)), validate=validate.Length(2, 2),
                               metadata={
        "description": "a rated game with open seats: [lowest, highest] rating (in the game's multiplayer "
                       "pool) of the addresses that may join", "example": [1400, 1700]})


class GameCreate(Base):
    game = Line(load_default=games.DEFAULT, validate=validate.OneOf(GAMES), metadata={
        "description": f"the game: {GAME_SEATS}; GET /api/v1/catalog lists them with their seat kinds "
                       "and options"})
    seats = fields.List(fields.Nested(SeatIn), required=True, validate=validate.Length(2, 5))
    options = fields.Nested(GameOptions, load_default=dict)

    @ma.validates_schema
    def _seat_count(self, data, **kwargs):
        """Each game's own number of seats, refused like any other bad field (a 5-seat Tiletum game
        is the 422 invalid-request naming ``seats`` that it always was)."""
        rules = games.GAMES.get(data.get("game") or games.DEFAULT)   # an unknown game is the field's error
        seats = data.get("seats") or []
        if rules is not None and not rules.min_players <= len(seats) <= rules.max_players:
            raise ma.ValidationError(
                f"a game of {rules.title} has {rules.min_players} to {rules.max_players} seats",
                "seats")


class SeatCreated(Closed):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = fields.String(required=True, validate=validate.OneOf(SEAT_KINDS))
    token = fields.String(required=True, allow_none=True, metadata={
        "description": "secret Bearer token of this seat: shown once; null for a cardinalbot seat (the bot "
                       "host plays it with the bot credential), an AI seat or an open seat"})


class GamesQuery(Base):
    status = fields.String(load_default="active", validate=validate.OneOf(["active"]), metadata={
        "description": "which games: `active`, the games in progress (the only list there is)"})
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=50),
                         metadata={"description": "at most this many games, newest first"})


class PublicGame(Closed):
    id = fields.String(required=True, metadata={"description": "watch it at /play/{id}"})
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    round = fields.Integer(required=True)
    players = fields.List(fields.String(), required=True, metadata={
        "description": "the seats' names, by seat (what the game's page shows anyone)"})
    tournament = fields.String(required=True, allow_none=True,
                               metadata={"description": "its tournament's id, if any"})
    started = fields.String(required=True, metadata={"description": "when it was created (UTC, ISO 8601)",
                                                     "example": "2025-03-01T12:00:00Z"})


class PublicGames(Closed):
    games = fields.List(fields.Nested(PublicGame), required=True)


class GameCreated(Closed):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seed_commitment = fields.String(required=True, allow_none=True, metadata={
        "description": "SHA-256 of the secret seed; null for a game waiting for players (it has no seed "
                       "yet)"})
    seats = fields.List(fields.Nested(SeatCreated), required=True)
    status = fields.String(validate=validate.OneOf(["waiting"]), metadata={
        "description": "`waiting` for a game with open seats (it starts when they are all taken; "
                       "docs/lobby.md)"})
    creator_token = fields.String(metadata={
        "description": "a game with open seats: the creator's secret, shown once (remove a joined player "
                       "before the start: DELETE /api/v1/lobby/{game}/seats/{seat})"})
    invite_url = fields.String(metadata={
        "description": "a game with open seats: the path of the invitation link to send to friends (the only "
                       "way into a private game)",
                       "example": "/play/lobby#game=Xq3vTz8aBc1d&invite=nRBs49fWwZqf"})
    expires_at = fields.String(
        metadata={"description": "a game with open seats: when it is cancelled if its seats "
                                 "are not all taken (UTC, ISO 8601)"})


class SeatSummary(Closed):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = fields.String(required=True, validate=validate.OneOf(SEAT_KINDS))
    level = fields.String(metadata={"description": "an ai seat's level (docs/ai.md)"})
    score = fields.Integer(required=True)


class GameSummary(Closed):
    id = fields.String(required=True)
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES))
    version = fields.Integer(required=True)
    round = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(ANY_PHASE + ["waiting"]), metadata={
        "description": "Tiletum: action, king or over; Carcassonne: play or over; The Pillars of the Earth: "
                       "cards, builders, placing, actions or over; waiting while the game waits for players "
                       "(status waiting or cancelled)"})
    to_act = _seat_list(required=True, metadata=TO_ACT)
    seats = fields.List(fields.Nested(SeatSummary), required=True)
    winner = fields.Integer(allow_none=True, required=True)
    seed_commitment = fields.String(required=True, allow_none=True, metadata={
        "description": "SHA-256 of the secret seed; null before the game starts (status waiting: no seed "
                       "exists yet)"})
    rated = fields.Boolean(required=True, metadata={
        "description": "whether the game counts for the ratings when it ends (created with options.rated, "
                       "every human seat with its own email address, no AI seat or bot account; "
                       "docs/tournaments.md, "
                       "Ratings). No hints in a rated game"})


class LegalMove(Closed):
    move = fields.String(required=True, metadata={"example": "take G4"})
    description = fields.String(required=True)


class LegalMoves(Closed):
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    to_act = _seat_list(required=True, metadata={**TO_ACT, "description": TO_ACT["description"] + ". Changed "
                        "in API 2.0: it was the seat (int) or null, which `actor` still gives"})
    actor = fields.Integer(allow_none=True, required=True, metadata=DEPRECATED_ACTOR)
    moves = fields.List(fields.Nested(LegalMove), required=True)
    can_undo = fields.Boolean(required=True,
                              metadata={"description": "whether the move 'undo' is accepted now"})


class MovesIn(Base):
    expected_version = Integer(required=True, validate=validate.Range(min=1),
                                      metadata={"description": "the version the moves were chosen at"})
    moves = fields.List(Text(validate=validate.Length(1, 100)), required=True,
                        validate=validate.Length(1, 200), metadata={"example": ["take G4", "king", "end"]})


class NewSeatToken(Base):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={
        "description": "the seat's new secret Bearer token: shown once; the old one no longer works"})


class NewSeatLink(Base):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    emailed = fields.Boolean(required=True, metadata={
        "description": "the email with the new link is on its way (false: no mail worker reachable now; "
                       "the old links are revoked all the same)"})


class NewDashboardKey(Base):
    player = fields.String(required=True)
    emailed = fields.Boolean(required=True, metadata={
        "description": "the email with the new dashboard link is on its way"})


class Outcome(fields.Raw):
    """One chance outcome, a pair ``[kind, value]``."""


CHANCE_OUTCOME = {
    "type": "array", "minItems": 2, "maxItems": 2,
    "items": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    "description": "one outcome revealed, `[kind, value]`: kind is a string (`draw:bonus`, `draw:character`, "
                   "`draw:contract`, `die-colour`, `die-roll`, `corruption`, `cost-tile`, `town-tile`, "
                   "`fair-tile`, `action-tile`; solo games also `challenge`, `bot-town`, `bot-tie`, "
                   "`decree-die`); value is what came out: a tile or token id, a colour letter (string), or "
                   "a die's value (integer)", "example": ["die-roll", 4]}


class Event(Closed):
    """One event of the game's log; which fields it has depends on ``type`` (GameStarted: players,
    options, rules, chance; MovePlayed: seat, move, rules, chance, maybe by; MoveUndone: seat,
    move, rules, maybe by; SeatResigned: seat, and winner when it ended the game)."""
    version = fields.Integer(required=True, metadata={"description": "the game's version after this event"})
    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES))
    seat = fields.Integer(metadata={"description": "MovePlayed, MoveUndone: the seat that moved; "
                                                   "SeatResigned: the seat that resigned"})
    winner = fields.Integer(metadata={"description": "SeatResigned: the winner, when the resignation "
                                                     "ended the game (every other seat had resigned)"})
    move = fields.String(allow_none=True,
                         metadata={"description": "MovePlayed: the move; MoveUndone: the move "
                                                  "taken back"})
    chance = fields.List(Outcome(metadata=CHANCE_OUTCOME),
                         metadata={"description": "outcomes revealed, in order"})
    players = fields.Integer(metadata={"description": "GameStarted: the number of seats"})
    options = fields.Nested(EngineOptions, metadata={"description": "GameStarted: the rules options"})
    rules = fields.String(metadata={"description": "version of the rules code that produced it"})
    by = fields.String(metadata={"description": "who played it when not the seat's player, e.g. 'stand-in'"})
    text = fields.String(metadata={"description": "the event in words, who did what by the seats' names "
                                                  "(GET /events only), e.g. 'Ann took the yellow 4 die: 4 "
                                                  "Gold and the Contract Action with 3 AP'"})


class MovesOut(Closed):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(Event), required=True)
    applied = fields.Integer(required=True, metadata={
        "description": "how many of the moves were played, from the first: all of them, unless one revealed "
                       "chance (a die, a tile, a token), which ends the batch"})
    unplayed = fields.List(fields.String(), required=True, metadata={
        "description": "the moves after the one that revealed chance, not looked at and not played: send "
                       "them again (at the new version) if you still want them", "example": []})


class EventsQuery(Base):
    after = QueryInteger(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION),
                           metadata={"description": "only events after this version (0 to 2**63-1)"})


class EventsPageQuery(EventsQuery):
    limit = QueryInteger(load_default=EVENTS_PAGE, validate=validate.Range(min=1, max=MAX_EVENTS_PAGE),
                         metadata={"description": f"at most this many events (1 to {MAX_EVENTS_PAGE}; "
                                                  f"default {EVENTS_PAGE})"})


class EventsOut(Closed):
    after = fields.Integer(required=True)
    events = fields.List(fields.Nested(Event), required=True)
    next_after = fields.Integer(required=True, metadata={
        "description": "the `after` of the next page: the version of the last event served (or `after`)"})
    more = fields.Boolean(required=True, metadata={
        "description": "whether events after `next_after` exist already: then ask again with "
                       "`after=next_after` (the `Link: rel=\"next\"` header is that URL)"})


class Fairness(Closed):
    seed_commitment = fields.String(required=True)
    algorithm = fields.String(required=True)
    finished = fields.Boolean(required=True)
    seed = fields.String(allow_none=True, required=True,
                         metadata={"description": "revealed when the game is over"})
    verify = fields.String(allow_none=True, required=True,
                           metadata={"description": "a command that checks every outcome"})


class Health(Base):
    status = fields.String(required=True, metadata={
        "description": "'ok', or 'degraded' while outbound SMTP is failing (the service works; emails wait)"})
    redis = fields.String(required=True)
    smtp = fields.String(required=True, metadata={
        "description": "outbound SMTP: 'ok', or 'failing' when deliveries have failed for want of the SMTP "
                       "server for TILETUM_HEALTH_SMTP_SECONDS (300) and emails wait for it"})
    parts = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "each part this deployment has: worker:<name> and mailin, 'ok' or 'down'; scheduler "
                       "(beat, by its sweeps' heartbeat): 'ok', 'starting' (just after the API started) or "
                       "'down' (no sweep ran for 3 of its intervals)"})


class Problem(Base):
    """An RFC 9457 problem document."""
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    code = fields.String(required=True, metadata={"description": "stable machine-readable error code"})
    detail = fields.String()
    current_version = fields.Integer(metadata={"description": "409: the game's version now"})
    move_index = fields.Integer(metadata={"description": "422/403: index of the failing move"})
    rule = fields.String(metadata={"description": "422: the broken rule's code"})
    errors = fields.Dict(metadata={"description": "422: request validation errors by field"})


class BotTurn(Base):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={"description": "the version at which it became due"})


class BotTurns(Base):
    turns = fields.List(fields.Nested(BotTurn), required=True)


class VacationIn(Base):
    on = Boolean(required=True, metadata={"description": "start (true) or stop (false) your vacation"})


class Vacation(Base):
    on = fields.Boolean(required=True)
    used_days = fields.Float(required=True)
    allowance_days = fields.Float(required=True)


class NotificationsIn(Base):
    mode = Line(required=True, validate=validate.OneOf(["move", "digest", "none"]), metadata={
        "description": "move: an email whenever it is your decision; digest: one email a day; none"})
    delay_minutes = fields.Integer(strict=True, validate=validate.Range(0, 1440), metadata={
        "description": "with `move`: while you play live (you acted on the game's page or through the API "
                       "in the last few minutes, or its page is open), your turn email waits this many "
                       "minutes and goes only if you have not looked meanwhile; 0: at once. Left out: "
                       "unchanged (the service's default is 5)"})


class QueryBoolean(fields.Boolean):
    """A boolean query argument: ``true`` or ``false``, nothing else (not ``1``, ``yes`` or ``True``)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if value in ("true", "false"):
            return value == "true"
        raise self.make_error("invalid", input=value)


class Notifications(Base):
    mode = fields.String(required=True)
    delay_minutes = fields.Integer(required=True, metadata={
        "description": "minutes a turn email waits while you play live (0: at once)"})


# --- tournaments ---------------------------------------------------------------------------------

class EntryIn(Base):
    name = Name(required=True, validate=validate.Length(1, 60), metadata={"example": "Ann"})
    email = TextEmail(required=True,
                      metadata={"description": "where the player's turn emails go; never shown"})


class TournamentCreate(Base):
    name = Name(required=True, validate=validate.Length(1, 100), metadata={"example": "Winter Swiss"})
    game = Line(load_default=games.DEFAULT, validate=validate.OneOf(GAMES), metadata={
        "description": f"the game every table plays, with its own rating pool: {GAME_SEATS}"})
    format = Line(required=True, validate=validate.OneOf(["round_robin", "swiss", "knockout"]))
    rounds = Integer(validate=validate.Range(1, 50), metadata={
        "description": "the number of rounds of a Swiss tournament (required for swiss; ignored otherwise)"})
    table_size = Integer(required=True, validate=validate.Range(2, 5), metadata={
        "description": "players per game (Tiletum 2-4, Carcassonne 2-5); a field that does not divide gets "
                       "short tables or byes"})
    time_control = fields.Nested(TimeControl,
                                 metadata={"description": "deadlines of every game (docs/pbem.md)"})
    timeout = fields.Nested(TimeoutPolicy, metadata={"description": "what happens when a deadline passes"})
    start_at = fields.AwareDateTime(load_default=None, metadata={
        "description": "when round 1 is paired (ISO 8601 with a zone); none: when the organizer starts it"})
    round_days = Float(load_default=None, validate=validate.Range(min=0.001, max=365), metadata={
        "description": "a round's deadline in days: games unfinished then are adjudicated; none: no "
                       "deadline"})
    entries = fields.List(fields.Nested(EntryIn), load_default=list, validate=validate.Length(0, 500))
    invite = Boolean(load_default=False,
                     metadata={"description": "players may enter with an invitation code"})
    rated = Boolean(load_default=True, metadata={"description": "the games count for ratings"})
    action_tiles = Line(load_default="printed", validate=validate.OneOf(["printed", "shuffled"]),
                        metadata={"description": "Tiletum's Action tiles (shuffled: Tiletum only)"})
    seed = Name(validate=validate.Length(1, 200), metadata={
        "description": "fixed seed of every game: only on a server run with --allow-seeded-games, else 422"})

    @ma.validates_schema
    def _table_fits_the_game(self, data, **kwargs):
        rules = games.GAMES.get(data.get("game") or games.DEFAULT)   # an unknown game is the field's error
        size = data.get("table_size")
        if rules is not None and size is not None and not rules.min_players <= size <= rules.max_players:
            raise ma.ValidationError(
                f"a game of {rules.title} seats {rules.min_players} to {rules.max_players} "
                "players", "table_size")
        if (rules is not None and data.get("action_tiles", "printed") != "printed"
                and "action_tiles" not in rules.own_options):
            raise ma.ValidationError(f"action_tiles is an option of Tiletum, not of {rules.title}",
                                     "action_tiles")


class TournamentPlayer(Base):
    player = fields.String(required=True,
                           metadata={"description": "the player's public id (no email is shown)"})
    name = fields.String(required=True)
    withdrawn = fields.Boolean()


class TournamentCreated(Base):
    id = fields.String(required=True)
    organizer_token = fields.String(required=True, metadata={
        "description": "secret Bearer token of the organizer (start, enter and withdraw players): shown "
                       "once"})
    status = fields.String(required=True)
    players = fields.List(fields.Nested(TournamentPlayer), required=True)
    invite_code = fields.String(metadata={"description": "the invitation code, when invitations are on"})


class TableResult(Base):
    scores = fields.List(fields.Integer(), required=True)
    finish = fields.List(fields.Integer(), required=True, metadata={"description": "places in seat order"})
    adjudicated = fields.Boolean(required=True)
    forfeits = fields.List(fields.String(), required=True)


class TournamentTable(Base):
    table = fields.Integer(required=True)
    game = fields.String(required=True, allow_none=True)
    players = fields.List(fields.String(), required=True,
                          metadata={"description": "public ids in seat order"})
    result = fields.Nested(TableResult, allow_none=True, required=True)


class TournamentRound(Base):
    round = fields.Integer(required=True)
    closed = fields.Boolean(required=True)
    started = fields.Float(required=True, metadata={"description": "Unix time"})
    deadline = fields.Float(required=True, allow_none=True, metadata={"description": "Unix time, or none"})
    byes = fields.List(fields.String(), required=True)
    tables = fields.List(fields.Nested(TournamentTable), required=True)


class TournamentOut(Base):
    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True, validate=validate.OneOf(GAMES),
                         metadata={"description": "the game every table plays"})
    format = fields.String(required=True)
    table_size = fields.Integer(required=True)
    rounds_planned = fields.Integer(required=True, allow_none=True, metadata={
        "description": "none for a knockout (until one player is left)"})
    status = fields.String(required=True, metadata={"description": "open, running or finished"})
    rated = fields.Boolean(required=True)
    start_at = fields.Float(required=True, allow_none=True)
    round_days = fields.Float(required=True, allow_none=True)
    time_control = fields.Dict(required=True, allow_none=True)
    timeout = fields.Dict(required=True, allow_none=True)
    invitations = fields.Boolean(required=True)
    version = fields.Integer(required=True)
    players = fields.List(fields.Nested(TournamentPlayer), required=True)
    rounds = fields.List(fields.Nested(TournamentRound), required=True)


class TournamentBrief(Base):
    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    format = fields.String(required=True)
    status = fields.String(required=True)
    players = fields.Integer(required=True)
    rounds_played = fields.Integer(required=True)


class TournamentList(Base):
    tournaments = fields.List(fields.Nested(TournamentBrief), required=True)


class PageQuery(Base):
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 10**6))
    limit = QueryInteger(load_default=50, validate=validate.Range(1, 200))


class StandingRow(Base):
    rank = fields.Integer(required=True)
    player = fields.String(required=True)
    name = fields.String(required=True)
    points = fields.Float(required=True)
    games = fields.Integer(required=True)
    vp = fields.Float(required=True)
    buchholz = fields.Float(required=True)
    sonneborn_berger = fields.Float(required=True)
    head_to_head = fields.Float(required=True)
    byes = fields.Integer(required=True)
    withdrawn = fields.Boolean(required=True)


class StandingsOut(Base):
    id = fields.String(required=True)
    format = fields.String(required=True)
    status = fields.String(required=True)
    rounds_played = fields.Integer(required=True)
    standings = fields.List(fields.Nested(StandingRow), required=True)


class TournamentEntryIn(EntryIn):
    invite = Name(validate=validate.Length(1, 100), metadata={
        "description": "the invitation code (not needed with the organizer's token)"})


class TournamentEntry(Base):
    player = fields.String(required=True)
    name = fields.String(required=True)
    entry_token = fields.String(required=True, metadata={
        "description": "the player's secret Bearer token for this tournament (their games, withdrawing)"})


class MyGame(Base):
    round = fields.Integer(required=True)
    table = fields.Integer(required=True)
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={
        "description": "the seat token of this game (its link token once the seat token was re-issued)"})
    finished = fields.Boolean(required=True)


class MyGames(Base):
    player = fields.String(required=True)
    withdrawn = fields.Boolean(required=True)
    games = fields.List(fields.Nested(MyGame), required=True)


class WithdrawIn(Base):
    player = Line(validate=validate.Length(1, 40), metadata={
        "description": "with the organizer's token: the public id of the player to withdraw"})


class Withdrawn(Base):
    player = fields.String(required=True)
    withdrawn = fields.Boolean(required=True)


# --- ratings -------------------------------------------------------------------------------------

class RatingsQuery(PageQuery):
    pool = Line(load_default="multiplayer", validate=validate.OneOf(POOLS), metadata={
        "description": "multiplayer (Tiletum), or solo:<level> (each Cardinalbot level is its own pool), or "
                       "<game>:multiplayer for another game (carcassonne:multiplayer, pillars:multiplayer)"})


class RatingRow(Base):
    rank = fields.Integer(required=True)
    player = fields.String(required=True)
    name = fields.String(required=True)
    rating = fields.Float(required=True)
    rd = fields.Float(required=True, metadata={"description": "rating deviation"})
    volatility = fields.Float(required=True)
    games = fields.Integer(required=True)


class Leaderboard(Base):
    pool = fields.String(required=True)
    total = fields.Integer(required=True)
    ratings = fields.List(fields.Nested(RatingRow), required=True)


class PoolRating(Base):
    rating = fields.Float(required=True)
    rd = fields.Float(required=True)
    volatility = fields.Float(required=True)
    games = fields.Integer(required=True)


class RatingPoint(Base):
    rating = fields.Float(required=True)
    rd = fields.Float(required=True)


class RatedGame(Base):
    game = fields.String(required=True)
    pool = fields.String(required=True)
    at = fields.Float(required=True)
    before = fields.Nested(RatingPoint, required=True)
    after = fields.Nested(RatingPoint, required=True)


class PlayerRatings(Base):
    player = fields.String(required=True)
    name = fields.String(required=True)
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(PoolRating), required=True)
    history = fields.List(fields.Nested(RatedGame), required=True)


# --- the player dashboard (/api/v1/me) -----------------------------------------------------------

class MeGame(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True, validate=validate.OneOf(GAMES), metadata={
        "description": "which game it is: tiletum, carcassonne or pillars (`game` is the game's id)"})
    seat = fields.Integer(required=True, metadata={"description": "your seat in this game"})
    name = fields.String(required=True, metadata={"description": "your seat's name"})
    opponents = fields.List(fields.String(), required=True,
                            metadata={"description": "the other seats' names"})
    round = fields.Integer(required=True)
    progress = fields.String(required=True, metadata={
        "description": "how far the game is, in the game's own terms (\"Round 2 of 4\", \"43 tiles left\")"})
    phase = fields.String(required=True, validate=validate.OneOf(ANY_PHASE))
    version = fields.Integer(required=True)
    to_act = _seat_list(required=True,
                        metadata={**TO_ACT, "description": TO_ACT["description"] + ". Changed in "
                        "API 2.0: it was the name of the seat to act, which `to_act_names` gives"})
    to_act_names = fields.List(fields.String(), required=True, metadata={
        "description": "the names of the seats in `to_act`, in the same order", "example": ["Ada"]})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "when the seat to act must have moved (UTC); null: none set"})
    on_vacation = fields.Boolean(required=True,
                                 metadata={"description": "your seat is on vacation in this game"})
    tournament = fields.String(required=True, allow_none=True)
    play_url = fields.String(required=True, metadata={
        "description": "the game page opened as your seat: /play/<game>#token=<seat link token>"})


class MePlace(Base):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    score = fields.Integer(required=True)
    place = fields.Integer(required=True)


class MeFinished(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True, validate=validate.OneOf(GAMES), metadata={
        "description": "which game it is: tiletum or carcassonne (`game` is the game's id)"})
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    opponents = fields.List(fields.String(), required=True)
    round = fields.Integer(required=True)
    version = fields.Integer(required=True)
    tournament = fields.String(required=True, allow_none=True)
    place = fields.Integer(required=True, metadata={"description": "your finishing place (1 = won)"})
    score = fields.Integer(required=True, metadata={"description": "your final score"})
    winner = fields.String(required=True, allow_none=True)
    places = fields.List(fields.Nested(MePlace), required=True,
                         metadata={"description": "every seat, by place"})
    play_url = fields.String(required=True)


class MeUndeliverable(Base):
    subject = fields.String(required=True, metadata={"description": "the subject of the email"})
    queued_at = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "when the service first tried to send it (UTC)"})
    given_up_at = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "when the service stopped trying (UTC)"})
    reason = fields.String(required=True, metadata={"description": "the last error from the mail server"})


class MeNotStarted(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True, validate=validate.OneOf(GAMES))
    seat = fields.Integer(required=True, metadata={"description": "your seat"})
    name = fields.String(required=True, metadata={"description": "your name at the table"})
    players = fields.Integer(required=True, metadata={"description": "the players wanted (seats in all)"})
    open_seats = fields.Integer(required=True)
    seats_taken = fields.List(fields.String(), required=True, metadata={"description": "names, yours too"})
    created_at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    expires_at = fields.String(required=True, metadata={"description": "when it is cancelled if not full"})
    play_url = fields.String(required=True, metadata={
        "description": "the game's page as your seat (/play/{id}#token=...)"})


class MeGames(Base):
    player = fields.String(required=True, metadata={"description": "your public player id"})
    to_move = fields.List(fields.Nested(MeGame), required=True, metadata={
        "description": "games where you are to act, most urgent deadline first (no deadline last)"})
    waiting = fields.List(fields.Nested(MeGame), required=True, metadata={
        "description": "games in progress waiting on others, newest first"})
    finished = fields.List(fields.Nested(MeFinished), required=True, metadata={"description": "newest first"})
    not_started = fields.List(fields.Nested(MeNotStarted), required=True, metadata={
        "description": "games waiting for players in which you have a seat (you posted them or joined them), "
                       "newest first; a game leaves this list when it starts or is cancelled"})
    undeliverable = fields.List(fields.Nested(MeUndeliverable), metadata={
        "description": "emails to your address that could not be delivered for 48 hours (the service "
                       "gave up on them), newest first: check your address and your spam filter"})


class MeVacationGame(Base):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    ok = fields.Boolean(required=True, metadata={"description": "the change was made in this game"})
    code = fields.String(required=True, allow_none=True, metadata={
        "description": "why not (no-vacation-left: the game's allowance is used up); null when ok"})
    detail = fields.String()
    on = fields.Boolean(required=True, metadata={"description": "your seat is now on vacation in this game"})
    used_days = fields.Float(required=True)
    allowance_days = fields.Float(required=True)


class MeVacation(Base):
    on = fields.Boolean(required=True, metadata={"description": "what was asked"})
    all_applied = fields.Boolean(required=True, metadata={"description": "every game took the change"})
    games = fields.List(fields.Nested(MeVacationGame), required=True, metadata={
        "description": "one entry per seat of yours in a game in progress"})


# --- bot accounts (docs/bots.md) ---------------------------------------------------------------

class BotIn(Base):
    class Meta:
        unknown = ma.RAISE
    name = Name(required=True, validate=validate.Length(1, 60), metadata={"example": "RandomRita"})
    email = TextEmail(required=True, metadata={"description": "the owner's address (never shown to anyone)",
                                               "example": "owner@example.org"})


class BotOut(Base):
    id = fields.String(required=True, metadata={"example": "3fa9c2d41b7e"})
    name = fields.String(required=True)


class BotToken(BotOut):
    token = fields.String(required=True, metadata={
        "description": "the bot's secret token, shown only here: `Authorization: Bearer <token>` on the game "
                       "endpoints of the bot's seats",
                       "example": "bot.3fa9c2d41b7e.mV3xQ0b8cM1xI4yVtq5tJ1YkZs0Ex9DEq"})


class BotCreated(BotToken):
    owner_key = fields.String(required=True, metadata={
        "description": "the owner's secret key, shown only here (keep it off the bot's server): it rotates "
                       "or revokes the token, deletes the account and seats the bot in games",
        "example": "botowner.3fa9c2d41b7e.Zp0cT1xQ8bM3xI4yVtq5tJ1YkZs0Ex9DEq"})


class BotInvitation(Base):
    id = fields.String(required=True,
                       metadata={"description": "the invitation's id: seats the bot once accepted",
                                 "example": "6d1f0c9a2b3e4f5a6b7c8d9e0f1a2b3c"})
    bot = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["pending", "accepted", "declined", "used",
                                                                   "expired"]))
    created = fields.Integer(required=True, metadata={"description": "unix time"})
    expires = fields.Integer(required=True, metadata={"description": "unix time: unused by then, it is gone"})
    game = fields.String(allow_none=True,
                         metadata={"description": "the game it seated the bot in, once used"})


class BotInvitations(Base):
    invitations = fields.List(fields.Nested(BotInvitation), required=True, metadata={
        "description": "the pending invitations, newest first"})


# --- webhooks (docs/bots.md, "Webhooks") -------------------------------------------------------

class WebhookIn(Base):
    class Meta:
        unknown = ma.RAISE
    url = Line(required=True, validate=validate.Length(1, 2000), metadata={
        "description": "where deliveries are POSTed: https://, or http:// to loopback only",
        "example": "https://bot.example.org/tiletum"})
    events = fields.List(Line(validate=validate.OneOf(["your-turn", "game-over", "all"])),
                         required=True, validate=validate.Length(1, 3),
                         metadata={"example": ["your-turn", "game-over"]})
    game = Line(load_default=None, validate=validate.Length(1, 40), metadata={
        "description": "with a seat token: the seat's game (required); with a bot token: none (all its "
                       "games)"})


class WebhookDelivery(Base):
    at = fields.Integer(required=True, metadata={"description": "unix time of the attempt"})
    version = fields.Integer(required=True)
    type = fields.String(required=True, metadata={"description": "your-turn, game-over or events"})
    attempt = fields.Integer(required=True)
    ok = fields.Boolean(required=True)
    status = fields.Integer(metadata={"description": "the receiver's HTTP status"})
    error = fields.String(metadata={"description": "why no HTTP answer came (timeout, refused address...)"})


class Webhook(Base):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    game = fields.String(allow_none=True)
    seat = fields.Integer(allow_none=True)
    bot = fields.String(allow_none=True)
    active = fields.Boolean(required=True,
                            metadata={"description": "false once switched off after repeated failures"})
    failures = fields.Integer(required=True, metadata={"description": "failed attempts in a row"})


class WebhookCreated(Webhook):
    secret = fields.String(required=True, metadata={
        "description": "the key of the deliveries' X-Tiletum-Signature: shown only here"})


class WebhookQuery(Base):
    game = Line(load_default=None, validate=validate.Length(1, 40), metadata={
        "description": "with a seat token: the seat's game (required); with a bot token: none"})


class WebhookList(Base):
    webhooks = fields.List(fields.Nested(Webhook), required=True)


class WebhookOut(Webhook):
    deliveries = fields.List(fields.Nested(WebhookDelivery), required=True,
                             metadata={"description": "the last 50 attempts, newest first"})


# --- handles, profiles, leaderboards and your data (application/profiles.py, accounts.py) ------------

POOL_NAMES = list(POOLS)   # every game's pools (application/rating_service.py, from the registry)


class HandleIn(Base):
    handle = Name(required=True, validate=validate.Length(max=100), metadata={
        "description": "your public handle, chosen once: 3 to 20 letters (a-z, A-Z), digits, '_' or '-', "
                       "unique without regard to case"})


class ProfileIn(Base):
    public = Boolean(required=True,
                     metadata={"description": "show your profile at /players/<handle> (true) or "
                                              "only your handle (false)"})


class ProfileSettings(Base):
    handle = fields.String(required=True, allow_none=True,
                           metadata={"description": "null until you choose one"})
    public = fields.Boolean(required=True)
    profile_url = fields.String(required=True, allow_none=True)


class RatingHistoryPoint(Base):
    game = fields.String(required=True)
    at = fields.String(required=True, metadata={"description": "when the game was rated (UTC, ISO 8601)"})
    rating = fields.Float(required=True, metadata={"description": "the rating after this game"})
    rd = fields.Float(required=True, metadata={"description": "the rating deviation after this game"})


class ProfileRating(Base):
    rating = fields.Float(required=True)
    rd = fields.Float(required=True, metadata={"description": "rating deviation"})
    games = fields.Integer(required=True)
    history = fields.List(fields.Nested(RatingHistoryPoint), required=True, metadata={
        "description": "one point per rated game, oldest first"})


class ProfileFinished(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True)
    players = fields.Integer(required=True)
    place = fields.Integer(allow_none=True)
    score = fields.Integer(allow_none=True)
    winner = fields.String(allow_none=True)
    url = fields.String(required=True, metadata={"description": "the game's page"})
    record = fields.String(required=True, metadata={"description": "the game's record (GET)"})


class ProfileCurrent(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True)
    url = fields.String(required=True)


class PlayerProfile(Base):
    handle = fields.String(required=True)
    public = fields.Boolean(required=True, metadata={
        "description": "false: the player has not made their profile public, and only the handle is shown"})
    name = fields.String(metadata={"description": "the name the player last played under"})
    member_since = fields.String(allow_none=True, metadata={"description": "the first game's creation (UTC)"})
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(ProfileRating), metadata={
        "description": "by rating pool (multiplayer, carcassonne:multiplayer, pillars:multiplayer, "
                       "solo:<level>)"})
    finished = fields.List(fields.Nested(ProfileFinished),
                           metadata={"description": "newest first (50 at most)"})
    current = fields.List(fields.Nested(ProfileCurrent), metadata={
        "description": "games in progress, but those kept private by their creator"})
    reliability = fields.Nested(Reliability, metadata={"description": "how reliably the player plays"})


class ChartQuery(Base):
    pool = Line(load_default="multiplayer", validate=validate.OneOf(POOL_NAMES))


class LeaderboardRow(Base):
    rank = fields.Integer(required=True)
    player = fields.String(required=True, metadata={"description": "the opaque player id"})
    name = fields.String(required=True, metadata={"description": "the name the player last played under"})
    handle = fields.String(required=True, allow_none=True, metadata={
        "description": "the handle of a public profile (/players/<handle>), else null"})
    rating = fields.Float(required=True)
    rd = fields.Float(required=True, metadata={"description": "rating deviation"})
    games = fields.Integer(required=True)


class LeaderboardPage(Base):
    pool = fields.String(required=True)
    total = fields.Integer(required=True, metadata={"description": "players in the pool"})
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    entries = fields.List(fields.Nested(LeaderboardRow), required=True,
                          metadata={"description": "best first"})


class DeleteAccountIn(Base):
    confirm = Line(required=True, validate=validate.Length(max=100), metadata={
        "description": "the word DELETE: the deletion cannot be undone"})


class AccountDeleted(Base):
    deleted = fields.Boolean(required=True)
    games_finished = fields.Integer(required=True, metadata={
        "description": "finished games whose moves stay, under 'a former player'"})
    games_running = fields.Integer(required=True, metadata={
        "description": "games in progress whose seat the stand-in now plays to the end"})
    tournaments = fields.Integer(required=True, metadata={
        "description": "tournaments entered: withdrawn from those not over, and in all of them the entry "
                       "renamed 'a former player' (points kept)"})
    bots_deleted = fields.Integer(required=True)


class ExportGame(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True)
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    time_zone = fields.String(allow_none=True)
    created = fields.String(allow_none=True)
    finished = fields.Boolean(required=True)
    version = fields.Integer(required=True)
    result = fields.Dict(allow_none=True)
    seat_state = fields.Dict(required=True, metadata={"description": "missed deadlines, dropped, vacation"})
    moves = fields.List(fields.String(), required=True,
                        metadata={"description": "your seat's moves, in order"})
    url = fields.String(required=True)
    record = fields.String(required=True)


class AccountExport(Base):
    exported_at = fields.String(required=True)
    player = fields.String(required=True)
    email = fields.String(required=True, metadata={"description": "your address (in your own export only)"})
    handle = fields.String(allow_none=True)
    profile_public = fields.Boolean(required=True)
    member_since = fields.String(allow_none=True)
    settings = fields.Dict(required=True,
                           metadata={"description": "notifications, delay_minutes (the wait of a turn email "
                                                    "while playing live), and when the address was verified"})
    games = fields.List(fields.Nested(ExportGame), required=True)
    ratings = fields.Dict(required=True,
                          metadata={"description": "by pool: rating, rd, vol, games and every rated game"})
    bots = fields.List(fields.Dict(), required=True, metadata={"description": "the bot accounts you own"})
    undeliverable = fields.List(fields.Dict(), required=True)
    reliability = fields.Nested(Reliability, metadata={"description": "how reliably you play"})
# --- the lobby (docs/lobby.md) -------------------------------------------------------------------

class LobbyQuery(Base):
    game = Line(validate=validate.OneOf(GAMES), metadata={"description": "only games of this game"})
    players = QueryInteger(validate=validate.Range(1, 6),
                           metadata={"description": "only games of this many players"})
    rated = QueryBoolean(metadata={"description": "only rated games (true) or only unrated ones (false)"})
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 10**6))
    limit = QueryInteger(load_default=20, validate=validate.Range(1, 100))


class LobbyGame(Closed):
    id = fields.String(required=True, metadata={"description": "the game's id (its page: /play/{id})"})
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    players = fields.Integer(required=True, metadata={"description": "the players wanted (seats in all)"})
    open_seats = fields.Integer(required=True, metadata={"description": "seats still open"})
    seats_taken = fields.List(fields.String(), required=True, metadata={
        "description": "the names of the seats taken so far (never an address)"})
    time_control = fields.Dict(required=True, allow_none=True, metadata={
        "description": "the time control it was created with (options.time_control), or null: the default"})
    rated = fields.Boolean(required=True)
    rating_range = fields.List(fields.Integer(), required=True, allow_none=True, metadata={
        "description": "[lowest, highest] rating that may join, or null: anyone"})
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "cancelled"]))
    cancelled_by = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(["creator", "waiting-time"]),
        metadata={"description": "why a cancelled game was cancelled: its creator cancelled it, or its "
                                 "waiting time ran out; null while it waits"})
    created_at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    expires_at = fields.String(required=True,
                               metadata={"description": "when it is cancelled if not full (UTC, ISO 8601)"})
    joined = fields.List(fields.Nested(LobbyPlayer), required=True, metadata={
        "description": "the seats taken, each with the player's public figures (never an address)"})


class LobbyList(Closed):
    games = fields.List(fields.Nested(LobbyGame), required=True)
    more = fields.Boolean(required=True, metadata={"description": "another page follows"})
    next_offset = fields.Integer(required=True, allow_none=True,
                                 metadata={"description": "the next page's offset"})


class LobbyJoinIn(Base):
    name = Name(load_default=None, validate=validate.Length(1, 60), metadata={
        "example": "Dana",
        "description": "the name shown at the table (with a dashboard key: default the name last used)"})
    email = TextEmail(load_default=None, metadata={
        "description": "the address to confirm by email (not with a dashboard key); never shown"})
    invite = Line(load_default=None, validate=validate.Length(1, 100), metadata={
        "description": "the invitation code of the invitation link (required for a private game)"})


class LobbyConfirmIn(Base):
    token = Line(required=True, validate=validate.Length(1, 200), metadata={
        "description": "the token of the emailed link (`/play/lobby#join=<token>`); it works once"})


class LobbyJoinOut(Closed):
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["pending", "seated"]), metadata={
        "description": "pending: a link went by email and the seat is taken when it is opened; seated: the "
                       "seat is yours"})
    emailed = fields.Boolean(metadata={"description": "pending: the confirmation email was queued"})
    seat = fields.Integer(metadata={"description": "seated: your seat"})
    name = fields.String()
    token = fields.String(
        metadata={"description": "seated: your seat's secret Bearer token, shown once (valid once "
                                 "the game starts)"})
    play_url = fields.String(metadata={"description": "seated: the path of the game page opened as your seat "
                                                      "(the seat link token in the fragment)"})
    started = fields.Boolean(
        metadata={"description": "seated: yours was the last seat, and the game has started"})


class LobbyCancelled(Closed):
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["cancelled"]))


class LobbySeatFreed(Closed):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["left", "removed"]))
