"""Bonuses and pending decisions: the agenda.

Everything a player must or may still resolve sits on ``state.agenda`` (top last):

* ``frame``: an Action with Action Points to spend (``main`` for the die's Action; others come
  from Helpers, Character bonuses and Contract benefits);
* ``fx``: bonus effects not yet applied (applied in order, one atom at a time);
* ``choice``: a decision only its owner can answer (which resource, which Building, ...).

Effect atoms are the data shapes of ``tiletum/data/README.md``. ``run_agenda`` applies effects
until a decision is needed, drops decisions that have nothing left to choose, and sets the actor.
"""
from __future__ import annotations

from .board import (add_vp, building_completed, gain, house_moves, king_advance, place_house, place_pillar,
                    to_box, why_cannot_take, why_no_house, why_no_pillar)
from .components import BASIC_ACTIONS, LETTER_RES, RES_LETTER, RESOURCES, components
from .notation import Move, mv
from .state import GameState

RES_LETTERS = tuple(RES_LETTER[r] for r in RESOURCES)
# choices that must be answered (no "skip")
REQUIRED = frozenset({"resource", "die_resource", "any_action", "joker"})


def frame(seat: int, action: str, ap: int, main: bool = False) -> dict:
    return {"t": "frame", "seat": seat, "action": action, "ap": ap, "main": main}


def choice(seat: int, kind: str, **kw) -> dict:
    return {"t": "choice", "seat": seat, "kind": kind, **kw}


def push_effects(s: GameState, seat: int, atoms) -> None:
    if atoms:
        s.agenda.append({"t": "fx", "seat": seat, "atoms": list(atoms)})


def main_frame(s: GameState) -> dict | None:
    for e in s.agenda:
        if e["t"] == "frame" and e["main"]:
            return e
    return None


def apply_atom(s: GameState, seat: int, atom: dict) -> None:
    p = s.seats[seat]
    if "gain" in atom:
        gain(p, atom["gain"])
    elif "vp" in atom:
        add_vp(p, atom["vp"])
    elif "any" in atom:
        s.agenda.append(choice(seat, "resource", n=atom["any"]))
    elif "action" in atom:
        if atom["action"] == "any":
            s.agenda.append(choice(seat, "any_action", ap=atom["ap"]))
        else:
            s.agenda.append(frame(seat, atom["action"], atom["ap"]))
    elif "move" in atom:
        s.agenda.append(choice(seat, "move", piece=atom["move"], n=atom.get("times", 1)))
    elif "move_town" in atom:
        s.agenda.append(choice(seat, "move_town", piece=atom["move_town"]))
    elif "move_and_place" in atom:
        s.agenda.append(choice(seat, "move_place", piece=atom["move_and_place"], moved=False, placed=False))
    elif "place_here" in atom:
        s.agenda.append(choice(seat, "place_here", what=atom["place_here"]))
    elif "building_bonus" in atom:
        s.agenda.append(choice(seat, "building"))
    elif "king" in atom:
        king_advance(s, seat, atom["king"])
    elif "add_ap" in atom:
        m = main_frame(s)
        if m is not None:
            m["ap"] += atom["add_ap"]
    elif "die_resource" in atom:
        s.agenda.append(choice(seat, "die_resource"))
    elif "place_anywhere" in atom:
        s.agenda.append(choice(seat, "place_anywhere", what=atom["place_anywhere"]))
    elif "teleport" in atom:
        s.agenda.append(choice(seat, "teleport", piece=atom["teleport"]))
    else:  # pragma: no cover - the data tests reject unknown atoms
        raise ValueError(f"unknown effect {atom!r}")


# --- choices -------------------------------------------------------------------------------

def _piece_spot(s: GameState, seat: int, piece: str) -> str:
    p = s.seats[seat]
    return p.merchant if piece == "merchant" else p.architect


def towns_beyond(spot: str) -> list[str]:
    """The Towns "adjacent" to ``spot`` for a move "from one Town to an adjacent Town": those
    reached through at most one road space (docs/tiletum-rulings.md), sorted."""
    c = components()
    out = set()
    for n in c.adjacent[spot]:
        if c.is_town(n):
            out.add(n)
        else:
            out.update(t for t in c.adjacent[n] if c.is_town(t))
    out.discard(spot)
    return sorted(out)


def _can_place_here(s: GameState, seat: int, piece: str) -> bool:
    p = s.seats[seat]
    if piece == "merchant":
        return why_no_house(s, p, p.merchant) is None
    return why_no_pillar(s, p, p.architect) is None


def choice_options(s: GameState, e: dict) -> list[Move]:
    """The moves that answer this decision, without ``skip``."""
    c = components()
    seat, kind = e["seat"], e["kind"]
    p = s.seats[seat]
    if kind in ("resource", "die_resource"):
        return [mv("gain", r) for r in RES_LETTERS]
    if kind in ("any_action", "joker"):
        return [mv("action", a) for a in BASIC_ACTIONS]
    if kind == "move":
        piece = e["piece"]
        return [mv(piece, n) for n in c.adjacent[_piece_spot(s, seat, piece)]]
    if kind == "move_town":
        piece = e["piece"]
        return [mv(piece, t) for t in towns_beyond(_piece_spot(s, seat, piece))]
    if kind == "move_place":
        piece = e["piece"]
        out = [] if e["moved"] else [mv(piece, n) for n in c.adjacent[_piece_spot(s, seat, piece)]]
        if not e["placed"] and _can_place_here(s, seat, piece):
            out.extend(house_moves(s, p.merchant) if piece == "merchant" else [mv("pillar")])
        return out
    if kind == "place_here":
        what = e["what"]
        if not _can_place_here(s, seat, "merchant" if what == "house" else "architect"):
            return []
        return house_moves(s, p.merchant) if what == "house" else [mv("pillar")]
    if kind == "place_anywhere":
        if e["what"] == "house":
            return [m for t in sorted(c.towns)
                    if why_no_house(s, p, t) is None for m in house_moves(s, t, named=True)]
        return [mv("pillar", t) for t in c.cathedral_towns if why_no_pillar(s, p, t) is None]
    if kind == "teleport":
        here = _piece_spot(s, seat, e["piece"])
        return [mv(e["piece"], x) for x in c.spots if x != here]
    if kind == "building":
        return [mv("building", b + 1) for b, rooms in enumerate(p.rooms) if any(t is not None for t in rooms)]
    if kind == "building_chars":
        return [mv("bonus", t) for t in e["left"]]
    if kind in ("action_tile", "king_tile"):
        return [mv("tile", e["tile"])] if why_cannot_take(p, e["tile"], s.rules) is None else []
    raise AssertionError(kind)


def has_options(s: GameState, e: dict) -> bool:
    """``bool(choice_options(s, e))``, without building the moves (the agenda runner's hot path)."""
    kind = e["kind"]
    if kind in ("resource", "die_resource", "any_action", "joker", "move", "teleport"):
        return True
    if kind in ("action_tile", "king_tile"):
        return why_cannot_take(s.seats[e["seat"]], e["tile"], s.rules) is None
    if kind == "building_chars":
        return bool(e["left"])
    if kind == "move_place" and not e["moved"]:
        return True
    return bool(choice_options(s, e))


def choice_moves(s: GameState, e: dict) -> list[Move]:
    out = choice_options(s, e)
    if e["kind"] not in REQUIRED:
        out.append(mv("skip"))
    return out


def apply_choice(s: GameState, e: dict, m: Move) -> None:
    """Apply an answer (already checked to be one of ``choice_moves``) to the top decision."""
    seat, kind = e["seat"], e["kind"]
    p = s.seats[seat]
    if m.verb == "skip":
        s.agenda.pop()
        if kind == "king_tile":
            to_box(s, e["tile"])
            s.king_bonus = None
        return
    if kind == "resource":
        gain(p, {_res(m.args[0]): 1})
        e["n"] -= 1
        if e["n"] <= 0:
            s.agenda.pop()
    elif kind == "die_resource":
        s.turn["override"] = _res(m.args[0])
        s.agenda.pop()
    elif kind == "any_action":
        s.agenda.pop()
        s.agenda.append(frame(seat, m.args[0], e["ap"]))
    elif kind == "joker":
        s.agenda.pop()
        mf = main_frame(s)
        mf["action"] = m.args[0]
        mf["ap"] += p.ap_bonus.get(m.args[0], 0)
    elif kind in ("move", "teleport", "move_town"):
        _set_piece(p, e["piece"], m.args[0])
        if kind != "move":
            s.agenda.pop()
        else:
            e["n"] -= 1
            if e["n"] <= 0:
                s.agenda.pop()
    elif kind == "move_place":
        if m.verb in ("merchant", "architect"):
            _set_piece(p, e["piece"], m.args[0])
            e["moved"] = True
            reward = None
        else:
            e["placed"] = True
            reward = _place_at_piece(s, seat, e["piece"], m.space)
        if e["moved"] and e["placed"]:
            s.agenda.pop()
        push_effects(s, seat, reward)
    elif kind == "place_here":
        s.agenda.pop()
        push_effects(s, seat,
                     _place_at_piece(s, seat, "merchant" if e["what"] == "house" else "architect", m.space))
    elif kind == "place_anywhere":
        s.agenda.pop()
        if m.verb == "house":
            push_effects(s, seat, place_house(s, p, m.args[0], m.space))
        else:
            place_pillar(s, p, m.args[0])
    elif kind == "building":
        s.agenda.pop()
        b = int(m.args[0]) - 1
        s.agenda.append(choice(seat, "building_chars", left=[t for t in p.rooms[b] if t is not None]))
    elif kind == "building_chars":
        left = [t for t in e["left"] if t != m.args[0]]
        if left:
            e["left"] = left
        else:
            s.agenda.pop()
        push_effects(s, seat, components().tiles[m.args[0]].raw["bonus"])
    elif kind in ("action_tile", "king_tile"):
        s.agenda.pop()
        p.store.append(e["tile"])
        if kind == "king_tile":
            s.king_bonus = None
        else:
            s.action_bonus[e["action"]] = None
    else:  # pragma: no cover
        raise AssertionError(kind)


def _res(letter: str) -> str:
    return LETTER_RES[letter]


def _set_piece(p, piece: str, spot: str) -> None:
    if piece == "merchant":
        p.merchant = spot
    else:
        p.architect = spot


def _place_at_piece(s: GameState, seat: int, piece: str, space: int | None = None):
    p = s.seats[seat]
    if piece == "merchant":
        return place_house(s, p, p.merchant, space)
    place_pillar(s, p, p.architect)
    return None


# --- the agenda runner -----------------------------------------------------------------------

def run_agenda(s: GameState) -> None:
    """Apply pending effects until a decision is needed; set ``state.actor``."""
    ag = s.agenda
    while ag:
        top = ag[-1]
        t = top["t"]
        if t == "fx":
            atoms = top["atoms"]
            if not atoms:
                ag.pop()
                continue
            top["atoms"] = atoms[1:]
            apply_atom(s, top["seat"], atoms[0])
            continue
        if t == "frame":
            if not top["main"] and top["ap"] <= 0:
                ag.pop()
                continue
            break
        # a choice: drop it when there is nothing to choose
        if not has_options(s, top):
            if top["kind"] == "king_tile":
                to_box(s, top["tile"])
                s.king_bonus = None
            ag.pop()
            continue
        break
    if ag:
        s.actor = ag[-1]["seat"]
    elif s.turn is not None:
        s.actor = s.turn["seat"]


def check_completion(s: GameState, seat: int, b: int) -> None:
    """After a Room or a Crest is filled: the roof House and the Completed-Building AP bonus."""
    c = components()
    p = s.seats[seat]
    if p.roofs[b] and all(t is not None for t in p.rooms[b]):
        p.roofs[b] = False
        p.houses += 1
    if building_completed(s.seats[seat], b) and c.building_ap[b] > 0 and p.rooms[b]:
        action = c.tile_raw(p.rooms[b][0], s.rules)["action"]
        if action not in p.ap_bonus:
            p.ap_bonus[action] = c.building_ap[b]
            mf = main_frame(s)
            # "including the current Action, if applicable" (Player Boards)
            if mf is not None and mf["seat"] == seat and mf["action"] == action:
                mf["ap"] += c.building_ap[b]
