"""The Blueprint every resource uses: flask-smorest's, with a request-body parser that refuses
JSON nested too deeply (issue 13). Python's ``json`` recurses once per level, so a body nested a
thousand levels deep raised ``RecursionError`` (a 500); a body nested less deeply but still
absurdly would reach the schemas. Both are now the 400 of any unreadable JSON body, and so is a body
with an integer of more digits than Python converts (``sys.get_int_max_str_digits()``, 4,300), which
``json`` refuses with a ValueError that was a 500."""
from __future__ import annotations

import json
import sys

import flask_smorest
from webargs import core
from webargs.flaskparser import FlaskParser, abort, is_json_request
from werkzeug.datastructures import MultiDict

from tablepost.i18n import said

from .language import PARAM

# No request of this API nests deeper than 4 levels (a game's options.time_control.quiet_hours);
# anything past this is not a request of ours.
MAX_JSON_DEPTH = 32
INT_DIGITS_LIMIT = sys.get_int_max_str_digits()


def json_depth_exceeds(value, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests more than ``limit`` arrays/objects deep. Iterative:
    it cannot itself run out of stack."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (list, dict)):
            if depth > limit:
                return True
            stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


class JsonParser(FlaskParser):
    def load_querystring(self, req, schema):
        """The query's arguments but ``lang``, which any operation takes (api/language.py) and no
        route's schema declares."""
        return self._makeproxy(MultiDict([(k, v) for k, v in req.args.items(multi=True) if k != PARAM]),
                               schema)

    def _raw_load_json(self, req):
        if not is_json_request(req):
            return core.missing
        try:
            data = super()._raw_load_json(req)
        except RecursionError:
            data = None
            too_deep = True
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise   # webargs' own 400 for a body that is not JSON
        except ValueError:
            # an integer of more than 4,300 digits: Python's int-from-string limit (issue 27) was a 500
            too_long = said("A number in the JSON body has more than {n} digits.", n=INT_DIGITS_LIMIT)
            abort(400, messages={"json": [too_long]})
        else:
            too_deep = json_depth_exceeds(data)
        if too_deep:
            too_deep_said = said("The JSON body nests deeper than {n} levels.", n=MAX_JSON_DEPTH)
            abort(400, messages={"json": [too_deep_said]})
        return data


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = JsonParser()

    @staticmethod
    def _prepare_response_doc(doc, doc_info, *, api, spec, **kwargs):
        """As flask-smorest's, with a 405 on every operation: a method its path does not have is
        answered 405 ``method-not-allowed`` with ``Allow`` (the app answers no OPTIONS of its own,
        ``PROVIDE_AUTOMATIC_OPTIONS`` is off), and the document says so where a client looks, on the
        path's operations (OpenAPI has no place for the methods a path does not have)."""
        responses = doc_info.setdefault("response", {}).setdefault("responses", {})
        if 405 not in responses and "405" not in responses:
            responses[405] = ["METHOD_NOT_ALLOWED"]
        return flask_smorest.Blueprint._prepare_response_doc(doc, doc_info, api=api, spec=spec, **kwargs)

    def arguments(self, schema, *args, **kwargs):
        """As flask-smorest's, with a schema class made into an instance once, here: webargs
        would otherwise build a new schema object for every request (issue 15, the move path).
        Schemas hold no per-request state, so one instance serves every request."""
        if isinstance(schema, type):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)
