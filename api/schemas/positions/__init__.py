"""Each game's position document, typed: one module per game in this package, each declaring its
schema as ``POSITION``. The state endpoint serves the position document of the game's own kind, told
apart by ``format``: each registered game's schema is found by the format it declares
(games.Rules.position_format), so nothing here names a game."""
from __future__ import annotations

import importlib
import pkgutil

import games


def _declared() -> dict[str, type]:
    """format -> position schema, from every module of this package."""
    out = {}
    for info in pkgutil.iter_modules(__path__):
        schema = importlib.import_module(f"{__name__}.{info.name}").POSITION
        (fmt,) = schema().fields["format"].validate.choices
        out[fmt] = schema
    return out


def _schema_of(game, declared: dict[str, type]) -> type:
    try:
        return declared[game.position_format]
    except KeyError:
        raise RuntimeError(f"no position schema for {game.title} (format {game.position_format}): "
                           "a hosted game needs one (docs/adding-a-game.md)") from None


_DECLARED = _declared()
# each registered game's position schema by its name in the document, in the registry's order
POSITION_SCHEMAS = {schema.__name__: schema
                    for schema in (_schema_of(g, _DECLARED) for g in games.GAMES.values())}
ANY_POSITION = {"oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in POSITION_SCHEMAS]}
