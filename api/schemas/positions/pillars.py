"""The Pillars of the Earth's position document (docs/pillars.md), typed."""
from __future__ import annotations

from marshmallow import fields, validate

from ..common import Closed, DEPRECATED_ACTOR, TO_ACT, seat_list


PILLARS_PHASES = ["cards", "builders", "placing", "actions", "over"]


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


class PillarsRoundSeat(Closed):
    """What the end of the round did to one player (pillars/summary.py)."""
    vp = fields.List(fields.Integer(), required=True,
                     metadata={"description": "VP before phase III and after"})
    gold = fields.List(fields.Integer(), required=True,
                       metadata={"description": "gold before phase III and after"})
    lines = fields.List(fields.String(), required=True, metadata={
        "description": "what was gained, paid and converted, and why, in the order the round resolved "
                       "it, in words (taxes, the event, the wool mill, privileges, the market, the "
                       "Cathedral...)"})


class PillarsRoundSummary(Closed):
    """The last finished round's end, said from the engine's own ledger of it."""
    round = fields.Integer(required=True)
    seats = _per_seat(fields.Nested(PillarsRoundSeat), "what the round's end did to the player, and why")


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
    to_act = seat_list(required=True, metadata=TO_ACT)
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
    passers = seat_list(required=True, metadata={"description": "passed master builders, in pass order"})
    protected = seat_list(required=True,
                           metadata={"description": "seats spared this round's negative event"})
    queue = fields.List(fields.List(fields.Raw()), required=True, metadata={
        "description": "phase III decisions waiting: [kind, seat] or [\"shiring\", seat, card]"})
    market_order = seat_list(required=True)
    traded = _per_seat(fields.List(fields.String()), "+wood bought, -stone sold this round")
    craftsmen = _per_seat(fields.List(fields.String()), "craftsman ids")
    privileges = _per_seat(fields.List(fields.String()), "permanent and unused once-only privileges")
    resources = _per_seat(fields.Nested(PillarsCubes), "resources")
    spots = fields.Nested(PillarsSpots, required=True)
    used = _per_seat(fields.Dict(keys=fields.String(), values=fields.Integer()),
                     "craftsman id -> times worked this round")
    final = fields.Nested(PillarsFinal, required=True, allow_none=True, metadata={
        "description": "null until the game ends"})
    winners = seat_list(required=True)
    winner = fields.Integer(allow_none=True, required=True)
    round_summary = fields.Nested(PillarsRoundSummary, required=True, allow_none=True, metadata={
        "description": "the last finished round's end in words (null before the first round ends)"})


POSITION = PillarsPosition
