"""Each game's position document, typed: the schema a game's spec names (games/spec.py,
``GameSpec.position_schema``; the three games' own are the modules of this package). The state
endpoint serves the position document of the game's own kind, told apart by ``format``; a game
whose spec names no schema is described by its ``format`` alone. Nothing here names a game."""
from __future__ import annotations

import marshmallow as ma

import games


def _schema_of(spec: games.GameSpec) -> type[ma.Schema] | dict:
    schema = spec.part("position_schema")
    if schema is None:   # described by its format only: an object of the game's own kind
        return {"type": "object", "required": ["format"], "additionalProperties": True,
                "description": f"{spec.game.title}'s position document (its own fields)",
                "properties": {"format": {"type": "string", "enum": [spec.game.position_format]}}}
    choices = getattr(schema().fields["format"].validate, "choices", None)
    if choices != [spec.game.position_format] and choices != (spec.game.position_format,):
        raise RuntimeError(f"{spec.game.title}'s position schema {schema.__name__} is not of its format "
                           f"{spec.game.position_format} (docs/adding-a-game.md)")
    return schema


def _name(spec: games.GameSpec, schema: type[ma.Schema] | dict) -> str:
    if isinstance(schema, dict):
        return "".join(part.capitalize() for part in spec.name.split("-")) + "Position"
    return schema.__name__


# each hosted game's position schema by its name in the document, in the registry's order
POSITION_SCHEMAS = {_name(spec, schema): schema
                    for spec, schema in ((s, _schema_of(s)) for s in games.specs().values())}
ANY_POSITION = {"oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in POSITION_SCHEMAS]}
