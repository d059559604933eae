"""From the position a seat is served to a full engine state the search can play on.

A seat sees the position document of ``application.game_service.view_doc``: the whole position
except that the face-down piles (``bonus``, ``contract``, ``character``) and the face-down
Corruption tokens are given only as counts. Nothing else is hidden, because no face-down order
exists (``docs/tiletum-state.md``): every tile is in exactly one place, so what a face-down pile holds is
what the components of the game leave once every tile in sight is accounted for. The viewer can
work that out, and so does :func:`determinize`; should a document not account for every tile (a
hand-made one), the pile is filled with a uniformly sampled subset of the candidates.

The future is the hidden part that remains: the next draws come from the game's secret seed,
keyed by the reveal count (rules version 2, ``tiletum/chance.py``). The seed is never in a view,
so the search plays each sampled future with a seed of its own (:func:`sample_seed`): that seed
makes every later draw and roll uniform over what the viewer knows remains.
"""
from __future__ import annotations

import random

from tiletum.components import components
from tiletum.state import GameState

PILES = ("bonus", "contract", "character")


def _strings(x, out: set[str]) -> None:
    if isinstance(x, str):
        out.add(x)
    elif isinstance(x, dict):
        for k, v in x.items():
            out.add(k)
            _strings(v, out)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _strings(v, out)


def hidden_counts(view: dict) -> dict[str, int]:
    """How many tiles each face-down pile holds, and the face-down Corruption tokens (key
    ``corruption``), as the view gives them (a count, or a full list in an unfiltered document)."""
    piles = view["piles"]
    out = {k: (v if isinstance(v, int) else len(v)) for k, v in piles.items()}
    pool = view["corruption_pool"]
    out["corruption"] = pool if isinstance(pool, int) else len(pool)
    return out


def known_piles(view: dict) -> dict[str, list[str]]:
    """The candidates for each face-down pile and the Corruption pool: the pile's tiles in play at
    this player count that appear nowhere in the view (sorted)."""
    c = components()
    seen: set[str] = set()
    for key, value in view.items():
        if key not in ("piles", "corruption_pool"):
            _strings(value, seen)
    players = int(view["players"])
    out = {pile: [t for t in c.tiles_for(pile, players) if t not in seen] for pile in PILES}
    revealed = set(view.get("corruption_revealed") or ())
    out["corruption"] = [t for t in c.pile_ids["corruption"] if t not in revealed]
    return out


def determinize(view: dict, rng: random.Random) -> GameState:
    """A full engine state consistent with ``view``: the face-down piles and Corruption pool are
    what the viewer knows remains (sampled, when the view does not pin them down exactly)."""
    counts = hidden_counts(view)
    candidates = known_piles(view)
    doc = dict(view)
    doc.pop("viewer", None)
    piles = {}
    for pile in sorted(view["piles"]):
        cands, n = candidates.get(pile, []), counts[pile]
        if n > len(cands):
            raise ValueError(
                f"the view's {pile} pile holds {n} tiles but only {len(cands)} are unaccounted for")
        piles[pile] = cands if n == len(cands) else sorted(rng.sample(cands, n))
    cands, n = candidates["corruption"], counts["corruption"]
    if n > len(cands):
        raise ValueError(
            f"the view has {n} face-down Corruption tokens but only {len(cands)} are unaccounted for")
    doc["piles"] = piles
    doc["corruption_pool"] = cands if n == len(cands) else sorted(rng.sample(cands, n))
    return GameState.from_doc(doc, validate=False)


def sample_seed(rng: random.Random) -> str:
    """A chance seed for one sampled future (never the game's own, which no view holds)."""
    return f"ai-{rng.getrandbits(64):016x}"
