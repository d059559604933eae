"""The OpenAPI document is clean under Spectral's ``spectral:oas`` ruleset (issue 39): every example
matches its own schema, ``nullable`` always has a ``type``, the document names its ``servers``
and ``info.contact``, and no component is unused. Spectral (@stoplight/spectral-cli, npm) runs
where it is installed: under the git-ignored ``.tools/spectral`` (``cd .tools/spectral && npm
install @stoplight/spectral-cli``) or on PATH. So that the check always runs, in CI too, an
equivalent check in Python (:func:`problems`, with the pinned openapi-schema-validator) looks at
the same rules on every run."""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from openapi_schema_validator import OAS30Validator

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "openapi" / "openapi.json"
RULESET = ROOT / "openapi" / ".spectral.yaml"
METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")


def spectral() -> str | None:
    local = ROOT / ".tools" / "spectral" / "node_modules" / ".bin" / "spectral"
    return str(local) if local.exists() else shutil.which("spectral")


def walk(node, where: str = "#"):
    """Every (JSON pointer, dict) of ``node``."""
    if isinstance(node, dict):
        yield where, node
        for k, v in node.items():
            yield from walk(v, f"{where}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, f"{where}/{i}")


def example_errors(doc: dict, schema: dict, example, where: str) -> list[str]:
    validator = OAS30Validator({**schema, "components": doc.get("components", {})})
    return [f"{where}: the example breaks its schema: {e.message[:160]}"
            for e in validator.iter_errors(example)]


def problems(doc: dict) -> list[str]:
    """What Spectral's spectral:oas ruleset finds (the rules this document could break), in Python."""
    out = []
    if not doc.get("servers"):
        out.append("oas3-api-servers: no servers")
    if not isinstance(doc.get("info", {}).get("contact"), dict):
        out.append("info-contact: no info.contact")
    for where, node in walk(doc):
        if node.get("nullable") is True and "type" not in node:
            out.append(f"{where}: nullable without type")
    # every example against its schema: parameters, media types, schemas
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            if method not in METHODS:
                continue
            at = f"{method.upper()} {path}"
            for p in op.get("parameters", []):
                if "example" in p and "schema" in p:
                    out += example_errors(doc, p["schema"], p["example"], f"{at} parameter {p['name']}")
            media = [("request", c) for c in op.get("requestBody", {}).get("content", {}).values()]
            for status, resp in op.get("responses", {}).items():
                media += [(status, c) for c in resp.get("content", {}).values()]
            for status, c in media:
                if "example" in c and "schema" in c:
                    out += example_errors(doc, c["schema"], c["example"], f"{at} {status} example")
                for name, ex in (c.get("examples") or {}).items():
                    if "value" in ex and "schema" in c:
                        out += example_errors(doc, c["schema"], ex["value"], f"{at} {status} example {name}")
    for name, schema in doc.get("components", {}).get("schemas", {}).items():
        for where, node in walk(schema, f"#/components/schemas/{name}"):
            if "example" in node and "$ref" not in node:
                out += example_errors(doc, node, node["example"], where)
    # no unused component
    text = json.dumps({k: v for k, v in doc.items() if k != "components"})
    components = doc.get("components", {})
    text += json.dumps(components)
    for kind in ("schemas", "parameters", "responses", "headers", "examples", "requestBodies"):
        for name in components.get(kind, {}):
            if f'"#/components/{kind}/{name}"' not in text:
                out.append(f"oas3-unused-component: #/components/{kind}/{name}")
    return out


def test_the_document_passes_the_python_equivalent_of_spectral_oas():
    found = problems(json.loads(DOCUMENT.read_text()))
    assert not found, "\n".join(found[:20])


@pytest.mark.parametrize("breakage, expected", [
    (lambda d: d.pop("servers"), "oas3-api-servers"),
    (lambda d: d["info"].pop("contact"), "info-contact"),
    (lambda d: d["paths"]["/api/v1/email/unsubscribe"]["get"]["parameters"][1].update(example="3f1c9a..."),
     "parameter sig: the example breaks its schema"),
    (lambda d: d["components"]["schemas"].update(Unused={"type": "object"}), "oas3-unused-component"),
    (lambda d: d["components"]["schemas"]["Problem"].update(nullable=True, type=None) or
     d["components"]["schemas"]["Problem"].pop("type"), "nullable without type"),
])
def test_the_python_check_finds_what_spectral_found(breakage, expected):
    doc = copy.deepcopy(json.loads(DOCUMENT.read_text()))
    breakage(doc)
    assert any(expected in p for p in problems(doc)), problems(doc)[:5]


@pytest.mark.skipif(spectral() is None, reason="Spectral is not installed (.tools/spectral or PATH)")
def test_spectral_finds_nothing_in_the_document():
    proc = subprocess.run([spectral(), "lint", "-r", str(RULESET), "-F", "hint", str(DOCUMENT)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
