"""The rules of a turn: where the tile in hand may go, the follower on it, scoring, the next draw.

Sections cited are the rules text's (shared/rules/carcassonne.md): "Placing Land Tiles",
"Placing New Followers", "Scoring", "Final scoring"; rulings in docs/carcassonne.md.
"""
from __future__ import annotations

from rules_common.errors import Reason, Term
from rules_common.words import NC_

from .features import complete, cloister_tiles, final_scoring, find
from .notation import Move
from .state import GameState, lay
from .tiles import ROLE_OF_KIND, ROTATIONS, SIDES, fit_table, placed

Err = tuple[str, str, str] | None   # (code, reason, rules section)
PLACING, DEPLOYING = "Placing Land Tiles", "Placing New Followers"
EDGE_TERMS = {"C": NC_("edge", "city"), "R": NC_("edge", "road"), "F": NC_("edge", "field")}
# the feature a follower goes on, as a refused move names it
FEATURE_TERMS = {"thief": NC_("feature", "road"), "knight": NC_("feature", "city"),
                 "farmer": NC_("feature", "field"), "monk": NC_("feature", "cloister")}
KIND_TERMS = {"road": NC_("feature", "road"), "city": NC_("feature", "city"), "farm": NC_("feature", "field"),
              "cloister": NC_("feature", "cloister")}


def cell_occupied(s: GameState, x: int, y: int) -> int:
    """For an empty cell, a 12-bit mask: per side d, whether the neighbour's road or city facing it
    (bit ``3d``) and the farms facing its two halves (bits ``3d+1+lr``) already hold a follower
    (``Placed.masks`` are the bits each segment of a tile placed there would join)."""
    if not s.meeples:
        return 0
    occ = 0
    parent, feat = s.parent, s.feat
    for bit, seg in s.facing[(x, y)]:
        root = parent[seg]
        if root != seg:
            root = find(parent, seg)
        if feat[root].men:
            occ |= bit
    return occ


_CELL_MOVES: dict[tuple, list] = {}


def cell_moves(x: int, y: int, letter: str) -> list:
    """Per rotation of tile ``letter`` at (x, y): its moves (without a follower, then one per
    segment) and its segments' masks. Cached: a board holds at most 72 tiles, so few cells matter."""
    key = (x, y, letter)
    out = _CELL_MOVES.get(key)
    if out is None:
        out = []
        for rot in ROTATIONS:
            p = placed(letter, rot)
            moves = [Move(x, y, rot)] + [Move(x, y, rot, ROLE_OF_KIND[seg.kind], p.names[k] or None)
                                         for k, seg in enumerate(p.segments)]
            out.append((moves, p.masks))
        if len(_CELL_MOVES) < 200_000:
            _CELL_MOVES[key] = out
    return out


def placeable(s: GameState, letter: str) -> bool:
    """Whether ``letter`` fits anywhere on the table."""
    table = fit_table()[letter]
    return any(table[a] for a in s.open.values())


def placements(s: GameState) -> list[tuple[int, int, int]]:
    """Every (x, y, rotation) where the tile in hand fits (distinct rotations only)."""
    table = fit_table()[s.tile]
    return [(x, y, r) for (x, y), a in s.open.items() for r in table[a]]


def legal(s: GameState) -> list[Move]:
    """Every legal move of the seat to act (unsorted)."""
    if s.phase == "over" or s.tile is None:
        return []
    out: list[Move] = []
    append, extend = out.append, out.extend
    letter = s.tile
    table = fit_table()[letter]
    free = s.supply[s.actor] > 0
    check_occ = free and bool(s.meeples)
    for cell, a in s.open.items():
        rots = table[a]
        if not rots:
            continue
        x, y = cell
        per_rot = cell_moves(x, y, letter)
        occ = cell_occupied(s, x, y) if check_occ else 0
        for r in rots:
            moves, masks = per_rot[r // 90]
            if not free:
                append(moves[0])
            elif not occ:
                extend(moves)
            else:
                append(moves[0])
                extend([moves[k + 1] for k, mask in enumerate(masks) if not occ & mask])
    return out


def random_move(s: GameState, rng) -> Move:
    """``legal(s)[rng.randrange(len(legal(s)))]``, without building the list (for playouts)."""
    letter = s.tile
    table = fit_table()[letter]
    masks_of = [placed(letter, r).masks for r in ROTATIONS]
    free = s.supply[s.actor] > 0
    check_occ = free and bool(s.meeples)
    entries = []
    total = 0
    for cell, a in s.open.items():
        rots = table[a]
        if not rots:
            continue
        occ = cell_occupied(s, cell[0], cell[1]) if check_occ else 0
        for r in rots:
            masks = masks_of[r // 90]
            if not free:
                n = 1
            elif not occ:
                n = 1 + len(masks)
            else:
                n = 1 + sum(1 for mask in masks if not occ & mask)
            entries.append((n, cell, r, occ))
            total += n
    i = rng.randrange(total)
    for n, cell, r, occ in entries:
        if i < n:
            moves, masks = cell_moves(cell[0], cell[1], letter)[r // 90]
            if i == 0 or not occ:
                return moves[i]
            return [moves[k + 1] for k, mask in enumerate(masks) if not occ & mask][i - 1]
        i -= n
    raise AssertionError("no legal move")  # pragma: no cover - a drawn tile always fits somewhere


def resolve(s: GameState, m: Move) -> tuple[Move, int | None, Err]:
    """The canonical form of ``m`` here (equivalent rotation, spot's canonical name), the local
    segment of its follower, and the rule it breaks (None if legal). Turn and phase not checked."""
    if (m.x, m.y) in s.at:
        return m, None, ("cell-taken", Reason("there is already a tile at {x},{y}", x=m.x, y=m.y), PLACING)
    a = s.open.get((m.x, m.y))
    if a is None:
        why = Reason("{x},{y} does not abut a placed tile along an edge", x=m.x, y=m.y)
        return m, None, ("not-adjacent", why, PLACING)
    if m.rot not in (0, 90, 180, 270):
        return m, None, ("bad-rotation", Reason("a rotation is 0, 90, 180 or 270"), PLACING)
    p = placed(s.tile, m.rot)
    rot = p.canonical_rot
    for d in range(4):
        if a[d] is not None and a[d] != p.edges[d]:
            why = Reason("the tile in hand turned {rot}° shows a {edge} on its {side} side, "
                         "the tile there shows a {other}", rot=m.rot,
                         edge=Term("edge", EDGE_TERMS[p.edges[d]]), side=SIDES[d],
                         other=Term("edge", EDGE_TERMS[a[d]]))
            return m, None, ("edges-differ", why, PLACING)
    if m.role is None:
        return Move(m.x, m.y, rot), None, None
    if s.supply[s.actor] <= 0:
        return m, None, ("no-follower-left", Reason("all your followers are on the board"), DEPLOYING)
    k = p.spots.get((m.role, m.spot or ""))
    if k is None:
        what = Term("feature", FEATURE_TERMS.get(m.role or "", NC_("feature", "feature")))
        role = Term("follower", m.role or "")
        why = (Reason("the tile in hand turned {rot}° has no {what} reaching {spot} for a {role}", rot=m.rot,
                      what=what, spot=m.spot, role=role) if m.spot
               else Reason("the tile in hand turned {rot}° has no {what} for a {role}", rot=m.rot, what=what,
                           role=role))
        return m, None, ("no-such-spot", why,
                         DEPLOYING)
    if cell_occupied(s, m.x, m.y) & p.masks[k]:
        kind = p.segments[k].kind
        why = Reason("that {kind} joins one that already has a follower",
                     kind=Term("feature", KIND_TERMS.get(kind, kind)))
        return m, None, ("feature-occupied", why, DEPLOYING)
    return Move(m.x, m.y, rot, m.role, p.names[k] or None), k, None


def apply(s: GameState, seat: int, m: Move, k: int | None, chance) -> list[dict]:
    """Play a resolved legal move IN PLACE: lay the tile, put the follower, score what it
    completes, pass the turn and reveal the next tile (or end the game). Returns the scorings."""
    x, y = m.x, m.y
    ti = lay(s, s.tile, x, y, m.rot)
    base = s.base[ti]
    if k is not None:
        s.meeples[base + k] = (seat, ti, k)
        s.feat[find(s.parent, base + k)].men += 1
        s.supply[seat] -= 1
    scored = []
    p = placed(s.tile, m.rot)
    parent, feat = s.parent, s.feat
    for j, seg in enumerate(p.segments):
        if seg.kind == "city" or seg.kind == "road":
            r = find(parent, base + j)
            f = feat[r]
            if f.open == 0 and not f.done:
                scored.append(complete(s, r))
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            cloister = s.cloisters.get((x + dx, y + dy))
            if cloister is not None and not feat[cloister].done and cloister_tiles(s, (x + dx, y + dy)) == 9:
                scored.append(complete(s, cloister))
    s.tile = None
    s.actor = (seat + 1) % s.players
    draw(s, chance)
    if s.tile is None:
        end(s)
    return scored


def draw(s: GameState, chance) -> None:
    """Reveal the next tile from the face-down ones; one that fits nowhere is set aside and
    another drawn (Rulings). Leaves ``s.tile`` None when none is left."""
    while s.pile:
        letter = chance.choice("tile", s.pile)
        s.pile.remove(letter)
        if placeable(s, letter):
            s.tile = letter
            return
        s.set_aside.append(letter)


def end(s: GameState) -> list[dict]:
    """The last tile is placed: final scoring, the winners."""
    scorings = final_scoring(s)
    s.phase, s.actor, s.tile = "over", None, None
    best = max(s.scores)
    s.winners = [i for i, v in enumerate(s.scores) if v == best]
    return scorings
