"""Tiletum's position document (docs/tiletum-state.md), typed."""
from __future__ import annotations

from marshmallow import fields, validate

from ..common import Closed, DEPRECATED_ACTOR, TO_ACT, id_or_null, seat_list


PHASES = ["action", "king", "over"]
ACTIONS = ["architect", "merchant", "character", "contract", "king", "joker"]
SOLO_LEVELS = ["priest", "deacon", "bishop"]
AGENDA_ENTRIES = ["frame", "fx", "choice"]
CHOICE_KINDS = ["action_tile", "joker", "resource", "die_resource", "any_action", "move", "move_town",
                "move_place", "place_here", "place_anywhere", "teleport", "building", "building_chars",
                "king_tile"]
SOLO_STAGES = ["die", "coffers", "joker", "action", "tasks"]
CHALLENGES = ["very_special_friends", "resourceful_clergy", "whispers_in_the_kings_ear",
              "ecclesiastical_income", "visitors_to_the_curia", "deep_coffers", "favor_at_the_court",
              "ready_for_action"]


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
    die = id_or_null(required=True,
                      metadata={"description": "the die taken this turn, e.g. G4; null before take"})
    exchanged = fields.Boolean(required=True)
    override = id_or_null(required=True,
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
    rooms = fields.List(id_or_null(), required=True,
                        metadata={"description": "Character per floor, or null"})
    crest = id_or_null(required=True)


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
    columns = fields.List(fields.List(id_or_null()), required=True)
    column_ap = fields.List(fields.Integer(), required=True)
    crests = fields.List(id_or_null(), required=True)
    inactive = fields.List(fields.String(), required=True)
    supply = fields.List(fields.String(), required=True)
    contracts = fields.List(fields.String(), required=True)
    fulfilled = fields.List(fields.String(), required=True)
    stage = fields.String(required=True, allow_none=True, validate=validate.OneOf(SOLO_STAGES))
    act = fields.Nested(SoloAct, required=True, allow_none=True)
    fulfils = fields.Integer(required=True)


class TiletumPosition(Closed):
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
    turn_order = seat_list(required=True)
    to_act = seat_list(required=True, metadata=TO_ACT)
    actor = fields.Integer(allow_none=True, required=True, metadata=DEPRECATED_ACTOR)
    viewer = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "your seat; null: spectator"})
    action_tiles = fields.List(fields.String(validate=validate.OneOf(ACTIONS)), required=True)
    wheel = fields.List(fields.String(), required=True)
    action_bonus = fields.Dict(keys=fields.String(validate=validate.OneOf(ACTIONS)), values=id_or_null(),
                               required=True)
    king_bonus = id_or_null(required=True)
    map_bonus = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True,
                            metadata={"description": "town -> Bonus tiles lying there"})
    houses = fields.Dict(keys=fields.String(), values=fields.List(fields.Integer(allow_none=True)),
                         required=True,
                         metadata={"description": "town -> seat on each House space (null: empty)"})
    pillars = fields.Dict(keys=fields.String(), values=seat_list(), required=True,
                          metadata={"description": "Cathedral town -> seats with a Pillar there"})
    cathedral_cost = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    cathedral_stack = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    fair_towns = fields.List(fields.String(), required=True)
    fair_tiles = fields.List(fields.String(), required=True)
    fairs_scored = fields.Integer(required=True)
    contract_offer = fields.List(id_or_null(), required=True)
    character_offer = fields.List(id_or_null(), required=True)
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


POSITION = TiletumPosition
