"""A toy game for tests/test_own_setup.py: a game with an option of its own and an automa of its own
(levels the Cardinalbot has not), written as a game outside the platform would write it, against
the game interface alone (games/base.py, games/setup.py). Pebbles: a pile of ``pile`` pebbles (its
own option, 3 to 30, default 10); each turn a seat takes 1 to 3 of them (``take <n>``); whoever takes
the last one wins. Against its automa, the Pebblebot (``sprout``, ``oak``), the automa sits first and
the person moves first."""
from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass, field

import games
from games.base import GameDefaults
from games.setup import Automa, Choice, Level, Option
from games.spec import GameSpec
from rules_common.errors import IllegalMove, NotationError, NotYourTurn

FORMAT = "pebbles-position/1"


@dataclass
class PebblesState:
    players: int
    pile: int
    automa: int | None = None
    taken: list[int] = field(default_factory=list)
    actor: int | None = 0
    phase: str = "take"
    winner: int | None = None
    version: int = 0

    def to_doc(self) -> dict:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_doc(cls, doc: dict) -> "PebblesState":
        return cls(**{k: v for k, v in doc.items() if k not in ("format", "viewer", "to_act")})

    def clone(self) -> "PebblesState":
        return PebblesState.from_doc(self.to_doc())


def policy(view: dict, seat: int | None, rng: random.Random) -> list[str] | None:
    """The Pebblebot: leaves a multiple of four when it can, else takes one."""
    state = PebblesState.from_doc(view)
    if state.phase == "over" or state.actor != state.automa:
        return None
    return [f"take {state.pile % 4 or 1}"]


OPTIONS = (Option("pile", "Pebbles", "how many pebbles the pile starts with", kind="integer", default=10,
                  min=3, max=30, tournament=True),
           Option("colour", "Colour", "the pebbles' colour", kind="choice", default="grey",
                  choices=(Choice("grey", "Grey"), Choice("white", "White"))))
PEBBLEBOT = Automa(kind="pebblebot", title="the Pebblebot", name="Pebblebot",
                   levels=(Level("sprout", "Sprout", "it takes one"), Level("oak", "Oak", "it plays well")),
                   default_level="sprout", policy="toy_game:policy", option="bot",
                   settings=(Option("greedy", "Greedy", "it always takes three", kind="boolean"),))


def _apply(s: PebblesState, ev: dict) -> None:
    if ev["type"] == "GameStarted":
        s.players, s.pile, s.automa = ev["players"], ev["pile"], ev.get("automa")
        s.taken = [0] * s.players
        s.actor = 1 if s.automa == 0 else 0
    elif ev["type"] == "MovePlayed":
        n = int(ev["move"].split()[1])
        s.pile -= n
        s.taken[ev["seat"]] += n
        if s.pile == 0:
            s.phase, s.actor, s.winner = "over", None, ev["seat"]
        else:
            s.actor = (ev["seat"] + 1) % s.players
    s.version += 1


class Pebbles(GameDefaults):
    name, title = "pebbles", "Pebbles"
    min_players, max_players = 2, 2
    seat_kinds = ("human", "pebblebot")
    options = OPTIONS
    automa = PEBBLEBOT
    state_type = PebblesState
    phases = ("take", "over")
    position_format = FORMAT
    cli = "pebbles-engine"

    def new_game(self, players, seed, options):
        start = {"type": "GameStarted", "players": players, "pile": options.get("pile", 10),
                 **({"automa": 0} if options.get("bot") is not None else {})}
        s = PebblesState(players, 0)
        _apply(s, start)
        return s, [start]

    def replay(self, events, state=None):
        s = state.clone() if state is not None else PebblesState(0, 0)
        for ev in events:
            if ev["type"] == games.RESIGNED:
                s.version += 1
                if ev.get("winner") is not None:
                    self.end_by_resignation(s, ev["winner"])
            else:
                _apply(s, ev)
        return s

    def end_by_resignation(self, state, winner):
        state.phase, state.actor, state.winner = "over", None, winner

    def parse(self, text):
        words = text.split()
        if len(words) != 2 or words[0] != "take" or words[1] not in ("1", "2", "3"):
            raise NotationError(f"not a move: {text!r} (take 1, take 2 or take 3)")
        return f"take {words[1]}"

    def legal_moves(self, state):
        if state.phase == "over":
            return []
        return [(f"take {n}", f"take {n} pebble{'s' if n > 1 else ''}") for n in (1, 2, 3) if n <= state.pile]

    def play(self, state, seat, move, seed):
        if state.actor != seat:
            raise NotYourTurn("not your turn")
        move = self.parse(move)
        n = int(move.split()[1])
        if n > state.pile:
            raise IllegalMove(f"only {state.pile} pebbles are left")
        ev = {"type": "MovePlayed", "seat": seat, "move": move}
        return [ev], self.replay([ev], state)

    def from_doc(self, doc):
        return PebblesState.from_doc(doc)

    def view(self, state, seat):
        return {**state.to_doc(), "viewer": seat, "to_act": [] if state.actor is None else [state.actor]}

    def automa_seat(self, state):
        return state.automa

    def scores(self, state):
        return list(state.taken)

    def places(self, state):
        return [1 if i == state.winner else 2 for i in range(state.players)]

    def round(self, state):
        return 1 + sum(state.taken) // 4

    def seed_commitment(self, seed):
        return hashlib.sha256(seed.encode()).hexdigest()

    def fairness_algorithm(self, meta, state):
        return "nothing is drawn"

    def write_record(self, events, headers):
        return "\n".join(f"{k}: {v}" for k, v in headers.items())

    def replay_record(self, text):
        raise NotationError("no records")

    def verify_events(self, events, seed, commitment):
        return []

    def event_text(self, before, ev, names=None, machines=frozenset()):
        if ev["type"] == "MovePlayed":
            who = names[ev["seat"]] if names else "You"
            return f"{who}: {ev['move']}"
        return ev["type"]

    def event_texts(self, events, start=0, state=None, names=None, machines=frozenset()):
        return [self.event_text(None, ev, names, machines) for ev in events[start:]]

    def board_svg(self, state, names=None):
        return f'<svg xmlns="http://www.w3.org/2000/svg"><text>{state.pile}</text></svg>'


PEBBLES = Pebbles()


SPEC = GameSpec(game=PEBBLES)   # no AI, no position schema, no page of its own: the service's generic ones


def register() -> None:
    """Host Pebbles in this process, as an installed distribution's entry point would."""
    games.register(SPEC)
