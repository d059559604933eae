"""The game's components, loaded once from the data files in ``tiletum/data/``.

Nothing here is mutable: the map graph, every tile definition, the player board and the
tracks. The records keep their ``source`` (printed, rulebook, or reconstructed); see
``tiletum/data/README.md``.
"""
from __future__ import annotations

import json
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import Any

RESOURCES: tuple[str, ...] = ("gold", "food", "wool", "stone", "iron")
RES_LETTER: dict[str, str] = {"gold": "G", "food": "F", "wool": "W", "stone": "S", "iron": "I"}
LETTER_RES: dict[str, str] = {v: k for k, v in RES_LETTER.items()}
RES_INDEX: dict[str, int] = {r: i for i, r in enumerate(RESOURCES)}
ACTIONS: tuple[str, ...] = ("architect", "merchant", "character", "contract", "king", "joker")
BASIC_ACTIONS: tuple[str, ...] = ("architect", "merchant", "character", "contract", "king")


def fold(text: str) -> str:
    """Case- and accent-insensitive key: 'Köln' -> 'koln', 'Nürnberg' -> 'nurnberg'."""
    norm = unicodedata.normalize("NFKD", text)
    return "".join(c for c in norm if not unicodedata.combining(c)).lower().replace(" ", "")


@dataclass(frozen=True)
class TileDef:
    id: str
    pile: str               # bonus | contract | character | cathedral | cost | town | fair | corruption
    kind: str               # crest | contract | helper | character |
                            # cathedral | cost | town | fair | corruption
    min_players: int = 2
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    # convenience accessors over the raw record
    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)

    @property
    def crest(self) -> str | None:
        return self.raw.get("crest")

    @property
    def vp(self) -> int:
        return self.raw.get("vp") or 0


@dataclass(frozen=True)
class Town:
    id: str
    house_spaces: tuple[dict, ...]
    cathedral: bool
    pillar_spaces: tuple[int, ...]
    bonus_spaces: tuple[int, ...]


class Components:
    """All static game data. Use :func:`components` to get the shared instance."""

    def __init__(self, map_doc: dict, board_doc: dict, tiles_doc: dict):
        self.map_doc, self.board_doc, self.tiles_doc = map_doc, board_doc, tiles_doc
        # --- map
        self.spots: tuple[str, ...] = tuple(s["id"] for s in map_doc["spots"])
        self.spot_kind: dict[str, str] = {s["id"]: s["kind"] for s in map_doc["spots"]}
        adj: dict[str, set[str]] = {s: set() for s in self.spots}
        for e in map_doc["edges"]:
            adj[e["a"]].add(e["b"])
            adj[e["b"]].add(e["a"])
        self.adjacent: dict[str, tuple[str, ...]] = {s: tuple(sorted(n)) for s, n in adj.items()}
        self.display: dict[str, str] = {s: map_doc.get("display_names", {}).get(s, s) for s in self.spots}
        self.towns: dict[str, Town] = {}
        for tid, t in map_doc["towns"].items():
            self.towns[tid] = Town(
                id=tid,
                house_spaces=tuple(t.get("house_spaces", ())),
                cathedral=bool(t.get("cathedral")),
                pillar_spaces=tuple(p["min_players"] for p in t.get("pillar_spaces", ())),
                bonus_spaces=tuple(b["min_players"] for b in t.get("bonus_spaces", ())),
            )
        self.cathedral_towns: tuple[str, ...] = tuple(sorted(t for t, v in self.towns.items() if v.cathedral))
        self._house_spaces: dict[tuple[str, int], tuple[dict, ...]] = {}
        self._pillar_spaces: dict[tuple[str, int], int] = {}
        self._spot_by_fold = {fold(s): s for s in self.spots}
        for s, name in self.display.items():
            self._spot_by_fold[fold(name)] = s
        # --- board
        b = board_doc
        self.dice_drawn: dict[int, int] = {int(k): v for k, v in b["dice_drawn"].items()}
        self.starting_gold: tuple[int, ...] = tuple(b["starting_gold"])
        self.starting_resources: dict[str, int] = dict(b["starting_resources"])
        self.starting_score: int = b["starting_score"]
        self.action_tiles_printed: tuple[str, ...] = tuple(b["action_tiles_printed_order"])
        self.wheel_rotation: int = b.get("wheel_rotation_per_round", 1)
        self.king_values: tuple[int, ...] = tuple(b["king_track"]["values"])
        self.king_start: int = self.king_values.index(b["king_track"].get("start", 0))
        self.king_top: int = len(self.king_values) - 1
        self.king_last_round_vp: int = b["king_last_round_vp"]
        self.fair_board_values: tuple[int, ...] = tuple(b["fair_board_values"])
        self.contract_offer_costs: tuple[int, ...] = tuple(b["contract_offer_costs"])
        pb = b["player_board"]
        self.storehouse_size: int = pb["storehouse_size"]
        self.building_rooms: tuple[int, ...] = tuple(x["rooms"] for x in pb["buildings"])
        self.building_ap: tuple[int, ...] = tuple(x["ap_bonus"] for x in pb["buildings"])
        self.crest_spaces: tuple[dict, ...] = tuple(pb["crest_spaces"])
        self.contract_spaces: tuple[dict, ...] = tuple(pb["contract_spaces"])
        self.completed_buildings_vp: tuple[int, ...] = tuple(pb["completed_buildings_vp"])
        self.houses_per_player: int = b["houses_per_player"]
        self.pillars_per_player: int = b["pillars_per_player"]
        self.houses_on_roofs: int = b["houses_on_roofs"]
        # --- tiles
        self.tiles: dict[str, TileDef] = {}
        self.pile_ids: dict[str, tuple[str, ...]] = {}
        pile_of_section = {
            "bonus": "bonus", "contract": "contract", "character": "character", "cathedral": "cathedral",
            "construction_cost": "cost", "town": "town", "fair": "fair", "corruption": "corruption",
        }
        for section, pile in pile_of_section.items():
            ids = []
            for rec in tiles_doc[section]:
                kind = rec.get("kind") or {"character": "character", "cathedral": "cathedral", "cost": "cost",
                                           "town": "town", "fair": "fair", "corruption": "corruption"}[pile]
                t = TileDef(id=rec["id"], pile=pile, kind=kind, min_players=rec.get("min_players", 2),
                            raw=rec)
                if t.id in self.tiles:
                    raise ValueError(f"duplicate tile id {t.id}")
                self.tiles[t.id] = t
                ids.append(t.id)
            self.pile_ids[pile] = tuple(sorted(ids))
        self.crest_families: tuple[str, ...] = tuple(tiles_doc["crest_families"])
        self._tile_by_fold = {fold(t): t for t in self.tiles}
        # A game is played to its end under the rules it started with: where a later rules
        # version changed a tile (its "rules1" entry), the older games read the older values.
        self._raw_by_rules: dict[int, dict[str, dict]] = {1: {
            tid: {**t.raw, **{k: v for k, v in t.raw["rules1"].items() if k != "note"}}
            for tid, t in self.tiles.items() if "rules1" in t.raw}}
        self._tiles_for: dict[tuple[str, int], tuple[str, ...]] = {}
        self._stacks: dict[str, tuple[str, ...]] = {}

    # --- lookups -------------------------------------------------------------------------
    def tile_raw(self, tile: str, rules: int) -> dict:
        """Tile ``tile``'s record as a game started under rules version ``rules`` reads it."""
        older = self._raw_by_rules.get(rules)
        if older is not None and tile in older:
            return older[tile]
        return self.tiles[tile].raw

    def spot(self, text: str) -> str | None:
        return self._spot_by_fold.get(fold(text))

    def tile_id(self, text: str) -> str | None:
        return self._tile_by_fold.get(fold(text))

    def is_town(self, spot: str) -> bool:
        return self.spot_kind.get(spot) == "town"

    # Asked for in every evaluation of the AI's search: worked out once per town and player count.
    def house_spaces(self, town: str, players: int) -> tuple[dict, ...]:
        key = (town, players)
        out = self._house_spaces.get(key)
        if out is None:
            out = self._house_spaces[key] = tuple(h for h in self.towns[town].house_spaces
                                                  if h["min_players"] <= players)
        return out

    def pillar_space_count(self, town: str, players: int) -> int:
        key = (town, players)
        out = self._pillar_spaces.get(key)
        if out is None:
            out = self._pillar_spaces[key] = sum(1 for p in self.towns[town].pillar_spaces if p <= players)
        return out

    def bonus_space_count(self, town: str, players: int) -> int:
        return sum(1 for p in self.towns[town].bonus_spaces if p <= players)

    @cached_property
    def distances(self) -> dict[str, dict[str, int]]:
        """All-pairs shortest path lengths in moves (road spaces count as spots)."""
        out: dict[str, dict[str, int]] = {}
        for src in self.spots:
            dist = {src: 0}
            q = deque([src])
            while q:
                u = q.popleft()
                for v in self.adjacent[u]:
                    if v not in dist:
                        dist[v] = dist[u] + 1
                        q.append(v)
            out[src] = dist
        return out

    def tiles_for(self, pile: str, players: int) -> list[str]:
        """The ids of a pile's tiles in play for this player count (sorted; a new list)."""
        key = (pile, players)
        ids = self._tiles_for.get(key)
        if ids is None:
            ids = self._tiles_for[key] = tuple(t for t in self.pile_ids[pile]
                                               if self.tiles[t].min_players <= players)
        return list(ids)

    def cathedral_stack(self, town: str) -> list[str]:
        """The Cathedral tiles of a town, sorted lowest VP at the bottom (a new list)."""
        stack = self._stacks.get(town)
        if stack is None:
            stack = self._stacks[town] = tuple(sorted(
                (t for t in self.pile_ids["cathedral"] if self.tiles[t].raw["cathedral"] == town),
                key=lambda t: (self.tiles[t].raw["vp"], t)))
        return list(stack)


def _load(name: str) -> dict:
    return json.loads(resources.files("tiletum").joinpath("data", name).read_text("utf-8"))


_COMPONENTS: Components | None = None


def components() -> Components:
    global _COMPONENTS
    if _COMPONENTS is None:
        _COMPONENTS = Components(_load("map.json"), _load("board.json"), _load("tiles.json"))
    return _COMPONENTS
