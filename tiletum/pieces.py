"""Tiletum's tiles drawn as players know them: what a Contract costs and gives, what a Character
or a Helper does, which Crest, never the tile's id (K12, C42, B03 are notation; issue 42).

:func:`short` is a tile's few words for a chip ("2 Iron for 2 VP", "+1 Food · King"), :func:`chip`
draws it (a rounded box in the colour of its kind, the resource amounts as coloured squares, the
full rule text as the SVG ``<title>``, which a page shows on hover or tap), and :func:`glyph` is a
small mark for where there is no room for words (a Bonus tile on a town of the map).
Pure: the component data only (tiletum/data/tiles.json)."""
from __future__ import annotations

from xml.sax.saxutils import escape

from .components import components
from .describe import action_name, amount, tile_name, town_name
from .words import N_, NC_, NP_, say

RES_FILL = {"gold": "#f2c200", "food": "#f28cb5", "wool": "#d4d4d4", "stone": "#5f5f5f", "iron": "#2f5fb8"}
RES_TEXT = {"gold": "#222222", "food": "#222222", "wool": "#222222", "stone": "#ffffff", "iron": "#ffffff"}
# the colour of a tile's kind: fill, border, text
KIND_COLOURS = {"contract": ("#fbf3dc", "#a8874a", "#4a3a12"), "character": ("#efe6fa", "#7a6a9a", "#3a2a5a"),
                "helper": ("#e6f1f7", "#6f9fb8", "#1f4a6a"), "crest": ("#fff3c4", "#8a6d00", "#4a3a00"),
                "cathedral": ("#f7e4e4", "#8b1a1a", "#5a1010")}


def kind(tile: str) -> str:
    """'contract', 'character', 'helper', 'crest' or 'cathedral' (what players call the tile)."""
    t = components().tiles[tile]
    return "character" if t.pile == "character" else t.kind


# a piece in the few words of a chip, by which piece moves or is placed (one message each: the
# languages inflect them differently)
_PIECE_MOVES = {"merchant": NP_("Merchant {n} step", "Merchant {n} steps"),
                "architect": NP_("Architect {n} step", "Architect {n} steps")}
_PIECE_WORDS = {
    "merchant": {"move_town": N_("Merchant to an adjacent Town"),
                 "move_and_place": N_("Merchant 1 step + House"), "teleport": N_("Merchant anywhere")},
    "architect": {"move_town": N_("Architect to an adjacent Town"),
                  "move_and_place": N_("Architect 1 step + Pillar"), "teleport": N_("Architect anywhere")},
}
_PLACE_WORDS = {"place_here": {"house": N_("House here"), "pillar": N_("Pillar here")},
                "place_anywhere": {"house": N_("House anywhere"), "pillar": N_("Pillar anywhere")}}
_CREST_WORDS = {"eagle": N_("eagle Crest"), "lion": N_("lion Crest"), "cup": N_("cup Crest"),
                "tower": N_("tower Crest"), "keys": N_("keys Crest"), "rose": N_("rose Crest")}


def _atom(a: dict, lang: str | None = None) -> str:
    """One effect in a few words ("+2 Wool", "Contract Action 1 AP")."""
    w = say(lang)
    if "gain" in a:
        return " ".join("+" + amount(r, n, lang) for r, n in a["gain"].items())
    if "vp" in a:
        return w._("+{n} VP", n=a["vp"])
    if "any" in a:
        return w.ngettext("+{n} any resource", "+{n} any resources", a["any"])
    if "action" in a:
        if a["action"] == "any":
            return w._("any Action {ap} AP", ap=a["ap"])
        return w._("{action} Action {ap} AP", action=action_name(a["action"], lang), ap=a["ap"])
    if "move" in a and a["move"] in _PIECE_MOVES:
        singular, plural = _PIECE_MOVES[a["move"]]
        return w.ngettext(singular, plural, a.get("times", 1))
    for key in ("move_town", "move_and_place", "teleport"):
        if key in a and a[key] in _PIECE_WORDS:
            return w._(_PIECE_WORDS[a[key]][key])
    for key in ("place_here", "place_anywhere"):
        if key in a and a[key] in _PLACE_WORDS[key]:
            return w._(_PLACE_WORDS[key][a[key]])
    if "building_bonus" in a:
        return w._("a Building's bonuses")
    if "king" in a:
        return w._("King +{n}", n=a["king"])
    if "add_ap" in a:
        return w._("+{n} AP", n=a["add_ap"])
    if "die_resource" in a:
        return w._("die as any resource")
    return w._("effect")


def contract_gives(tile: str, lang: str | None = None) -> str:
    """What a Contract gives, after its cost: '2 VP', '5 VP + Merchant 1 step'."""
    raw = components().tiles[tile].raw
    gives = say(lang)._("{n} VP", n=raw.get("vp", 0))
    return gives + "".join(f" + {_atom(a, lang)}" for a in raw.get("benefit") or [])


def contract_rest(tile: str, lang: str | None = None) -> str:
    """A Contract's words after its resource squares: 'for 2 VP', '+ 2 alike for 5 VP'."""
    w = say(lang)
    n = components().tiles[tile].raw.get("identical") or 0
    gives = contract_gives(tile, lang)
    if n:
        return w.ngettext("+ {n} any for {gives}", "+ {n} alike for {gives}", n, gives=gives)
    return w._("for {gives}", gives=gives)


def short(tile: str, lang: str | None = None) -> str:
    """A tile in a few words, without its id: '2 Iron for 2 VP', '+1 Food · King', 'eagle Crest'."""
    w = say(lang)
    t = components().tiles[tile]
    raw = t.raw
    k = kind(tile)
    if k == "crest":
        return w._(_CREST_WORDS[raw["crest"]]) if raw["crest"] in _CREST_WORDS else f"{raw['crest']} Crest"
    if k == "contract":
        cost = [amount(r, n, lang) for r, n in raw.get("cost", {}).items()]
        n = raw.get("identical") or 0
        if n:
            cost.append(w.ngettext("{n} any", "{n} alike", n))
        return w._("{cost} for {gives}", cost=" + ".join(cost), gives=contract_gives(tile, lang))
    if k == "helper":
        return w._("Helper: {effects}", effects=", ".join(_atom(a, lang) for a in raw["effect"]))
    if k == "character":
        return ", ".join(_atom(a, lang) for a in raw["bonus"]) + f" \u00b7 {action_name(raw['type'], lang)}"
    if k == "cathedral":
        return w._("{town}, {n} VP", town=town_name(raw["cathedral"], lang), n=raw.get("vp", 0))
    return w._("tile")


_CREST_FAMILY = {"eagle": NC_("crest", "eagle"), "lion": NC_("crest", "lion"), "cup": NC_("crest", "cup"),
                 "tower": NC_("crest", "tower"), "keys": NC_("crest", "keys"), "rose": NC_("crest", "rose")}


def crest_family(tile: str, lang: str | None = None) -> str:
    """A Crest tile by its family alone ('eagle'); another tile by its few words (:func:`short`)."""
    raw = components().tiles[tile].raw
    if kind(tile) == "crest" and raw["crest"] in _CREST_FAMILY:
        return say(lang).pgettext("crest", _CREST_FAMILY[raw["crest"]])
    return short(tile, lang).removesuffix(" Crest")


def full(tile: str, lang: str | None = None) -> str:
    """The tile's whole rule text in words (the chip's title): tile_name with a capital."""
    if kind(tile) == "cathedral":
        raw = components().tiles[tile].raw
        return say(lang)._("A Cathedral tile of {town} ({n} VP)", town=town_name(raw["cathedral"], lang),
                           n=raw.get("vp", 0))
    text = tile_name(tile, lang)
    return text[0].upper() + text[1:]


def _width(text: str, size: float) -> float:
    """A generous estimate of a label's drawn width (0.56 of the size per character)."""
    return len(text) * size * 0.56


_NARROW = frozenset(" .,:;'|!()[]iIjlrtf1")
_WIDE = frozenset("MWmw@%")


def _drawn(text: str, size: float) -> float:
    """A label's width in a sans-serif (DejaVu Sans, Helvetica), per kind of letter: narrow ones
    (i, l, 1, a space) 0.32 of the size, wide ones (M, W) 0.88, capitals and digits 0.66,
    the rest 0.56; a little over either font's own."""
    return size * sum(0.32 if c in _NARROW else 0.88 if c in _WIDE else 0.66 if c.isupper() or c.isdigit()
                      else 0.56 for c in text)


LEAST = 8   # a chip's smallest words on the board's plan (12 px: tiletum/svg.py draws it 1.5 times as large)


def _wide(text: str, size: float) -> float:
    """The widest a label may be drawn (0.62 of the size per character: any letters)."""
    return len(text) * size * 0.62


def _fit(text: str, size: float, room: float, least: float = LEAST) -> tuple[str, float]:
    """``text`` and the size to draw it at in ``room``: smaller, down to ``least``, rather than cut.
    Only what does not fit even then is cut with "..." (the whole text stays in the chip's title;
    tests/test_board_text_layout.py finds none cut on random boards)."""
    while _drawn(text, size) > room and size - 0.5 >= least:
        size -= 0.5
    while _drawn(text, size) > room and len(text) > 4:
        text = text[:-4].rstrip(" ,.+") + "..."
    return text, size


def _split(text: str, size: float, room: float) -> tuple[str, str]:
    """``text`` as (what fits one line of ``room`` at ``size``, the rest): the rest empty when it all
    fits, and the split at a space."""
    if _drawn(text, size) <= room:
        return text, ""
    words = text.split(" ")
    for i in range(len(words) - 1, 0, -1):
        first = " ".join(words[:i])
        if _drawn(first, size) <= room:
            return first, " ".join(words[i:])
    return text, ""


def _text(x: float, y: float, text: str, size: float, fill: str, anchor: str = "start",
          weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
            f'font-weight="{weight}">{escape(text)}</text>')


def chip(tile: str, x: float, y: float, w: float, h: float = 16, size: float = 9.5,
         cls: str = "", data: str = "", label: str | None = None, least: float = LEAST,
         lang: str | None = None) -> list[str]:
    """A tile drawn as a chip: its kind's colours, a Contract's cost as coloured resource squares
    then what it gives, anything else as its short words; ``cls`` is added to the group's class
    and ``data`` (' data-offer="contract-1"') to its attributes: the page's hooks. ``label``
    replaces the words (a narrow space). Words that do not fit at ``size`` are drawn smaller, down
    to ``least``, rather than cut. In ``lang`` (English by default)."""
    fill, stroke, ink = KIND_COLOURS.get(kind(tile), ("#ffffff", "#999999", "#222222"))
    out = [f'<g class="{cls + " " if cls else ""}piece piece-{kind(tile)}"{data}>',
           f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="3" fill="{fill}" '
           f'stroke="{stroke}" stroke-width="0.8"><title>{escape(full(tile, lang))}</title></rect>']
    base = y + h / 2 + size * 0.36
    raw = components().tiles[tile].raw
    if label is None and kind(tile) == "contract" and raw.get("cost"):
        cx = x + 4
        for r, n in raw["cost"].items():  # a square per resource kind with its amount
            out.append(f'<rect x="{cx:.1f}" y="{y + 2:.1f}" width="{h - 4:.1f}" height="{h - 4:.1f}" rx="2" '
                       f'fill="{RES_FILL[r]}" stroke="#444444" stroke-width="0.5"><title>'
                       f"{escape(amount(r, n, lang))}</title></rect>")
            out.append(_text(cx + (h - 4) / 2, base, str(n), size, RES_TEXT[r], "middle", "bold"))
            cx += h - 1
        words, at = _fit(contract_rest(tile, lang), size, x + w - cx - 5, least)
        out.append(_text(cx + 1, base, words, at, ink))
    elif label is None and kind(tile) == "character":  # the bonus, and its type at the right
        bonus = ", ".join(_atom(a, lang) for a in raw["bonus"])
        typ = say(lang)._("{action} type", action=action_name(raw["type"], lang))
        if _drawn(bonus, size) + _drawn(typ, size) + 14 > w:
            typ = action_name(raw["type"], lang)   # the type's word alone, never an abbreviation
        tsize = max(least, size * 0.9)
        two = h >= 2 * size + 6 and _wide(bonus, size) + _wide(typ, tsize) + 14 > w
        first, rest = _split(bonus, least, w - 8)
        if two and rest and _drawn(rest, least) + _drawn(typ, tsize) + 14 <= w:
            # longer than its first line even at the least size (a language longer than English's):
            # the rest of the bonus on the second line, before the type
            out.append(_text(x + 4, y + size + 2, *_fit(first, size, w - 8, least), ink))
            out.append(_text(x + 4, y + h - 4, *_fit(rest, size, w - 14 - _drawn(typ, tsize), least), ink))
            out.append(_text(x + w - 4, y + h - 4, typ, tsize, "#6a5a8a", "end"))
        elif two:   # a tall chip: the bonus on its first line, the type under it at the right
            words, at = _fit(bonus, size, w - 8, least)
            out.append(_text(x + 4, y + size + 2, words, at, ink))
            out.append(_text(x + w - 4, y + h - 4, typ, tsize, "#6a5a8a", "end"))
        else:
            words, at = _fit(bonus, size, w - 14 - _drawn(typ, tsize), least)
            out.append(_text(x + 4, base, words, at, ink))
            out.append(_text(x + w - 4, base, typ, tsize, "#6a5a8a", "end"))
    else:
        said = label if label is not None else short(tile, lang)
        first, rest = _split(said, least, w - 8)
        if rest and h >= 2 * least + 6 and _drawn(rest, least) <= w - 8:
            # a tall chip whose words do not fit one line even at the least size: two lines
            out.append(_text(x + 4, y + h / 2 - 1, *_fit(first, size, w - 8, least), ink))
            out.append(_text(x + 4, y + h - 4, *_fit(rest, size, w - 8, least), ink))
        else:
            words, at = _fit(said, size, w - 8, least)
            out.append(_text(x + 4, base, words, at, ink))
    out.append("</g>")
    return out


def glyph(tile: str, x: float, y: float, size: float = 9, lang: str | None = None) -> str:
    """A small mark of a tile's kind, where no words fit (a shield for a Crest, a scroll for a
    Contract, a disc for a Helper), with its full text as the title."""
    fill, stroke, _ = KIND_COLOURS.get(kind(tile), ("#ffffff", "#999999", "#222222"))
    title = f"<title>{escape(full(tile, lang))}</title>"
    k = kind(tile)
    if k == "crest":
        s = size
        return (f'<path d="M{x:.1f},{y:.1f} h{s:.1f} v{s * 0.55:.1f} l{-s / 2:.1f},{s * 0.45:.1f} '
                f'l{-s / 2:.1f},{-s * 0.45:.1f} z" fill="{fill}" stroke="{stroke}" stroke-width="0.8">'
                f"{title}</path>")
    if k == "helper":
        r = size / 2
        return (f'<circle cx="{x + r:.1f}" cy="{y + r:.1f}" r="{r:.1f}" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="0.8">{title}</circle>')
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" rx="1.5" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="0.8">{title}</rect>')




def type_word(tile: str, abbreviated: bool = False, lang: str | None = None) -> str:
    """A Character's type (the Action its completed Building strengthens): 'Architect'. Never
    abbreviated any more ("Arch.", "Merch." read as the drawing's own shorthand: issue 53);
    ``abbreviated`` is kept for callers and ignored."""
    return action_name(components().tiles[tile].raw["type"], lang)


__all__ = ["chip", "contract_rest", "crest_family", "full", "glyph", "kind", "short", "type_word", "RES_FILL",
           "RES_TEXT", "KIND_COLOURS"]
