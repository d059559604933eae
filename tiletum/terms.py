"""The game's words put into a refused move's reason (``rules_common.errors.Reason``): a town, a
resource, an Action, a Crest, a pending decision, each a ``Term`` whose English is what the reason
always said and which another language says through the catalog (docs/i18n.md, "A refused move's
reason"). A road space stays its notation (``London_Brugge``)."""
from __future__ import annotations

from rules_common.errors import Reason, Term
from rules_common.words import NC_

from .components import LETTER_RES, components

# the kinds of a pending decision, as a refusal names them ("first answer the pending move town decision")
DECISIONS = (NC_("decision", "action tile"), NC_("decision", "any action"), NC_("decision", "building"),
             NC_("decision", "building chars"), NC_("decision", "die resource"), NC_("decision", "joker"),
             NC_("decision", "king tile"), NC_("decision", "move"), NC_("decision", "move place"),
             NC_("decision", "move town"), NC_("decision", "place anywhere"), NC_("decision", "place here"),
             NC_("decision", "resource"), NC_("decision", "teleport"))


def town(spot: str) -> str:
    """A town by its id (English: the id, as the reasons say it; another language: its printed name
    through the catalog); a road space as it is."""
    if "_" in spot:
        return spot
    return Term("town", components().display.get(spot, spot), english=spot)


def res(letter: str) -> Term:
    """A resource by its letter: 'Gold'."""
    return Term("resource", LETTER_RES[letter].title())


def action(name: str) -> Term:
    """An Action (or a Character's type) by its id: 'architect' (English as it is)."""
    return Term("action", name.title(), english=name)


def crest(name: str) -> Term:
    return Term("crest", name)


def decision(kind: str) -> Term:
    return Term("decision", kind.replace("_", " "))


__all__ = ["DECISIONS", "Reason", "Term", "action", "crest", "decision", "res", "town"]
