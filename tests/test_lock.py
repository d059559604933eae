"""The pinned installs (issue 27, "Installs must not hang"): `make run`, `make test`, CI and the
Dockerfile install the exact versions in requirements/*.txt, so nothing is resolved on a fresh
machine; these checks fail when pyproject.toml gains a dependency the pins do not cover, or when
an install path stops using the pins."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def pins(name: str) -> dict[str, str]:
    out = {}
    for line in (ROOT / "requirements" / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9._-]+)(\[[^\]]*\])?==([^\s;]+)", line)
        assert m, f"requirements/{name}: {line!r} is not an exact pin"
        out[canonicalize_name(m.group(1))] = m.group(3)
    return out


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_every_dependency_is_pinned_to_a_version_it_accepts():
    meta = project()
    for lock, reqs in (("runtime.txt", meta["dependencies"]),
                       ("test.txt", meta["dependencies"] + meta["optional-dependencies"]["test"])):
        pinned = pins(lock)
        for text in reqs:
            req = Requirement(text)
            name = canonicalize_name(req.name)
            assert name in pinned, f"{req.name} is not pinned in requirements/{lock}: run make lock"
            assert req.specifier.contains(pinned[name], prereleases=True), \
                f"requirements/{lock} pins {req.name}=={pinned[name]}, outside {req.specifier}: run make lock"


def test_the_test_pins_keep_the_runtime_pins():
    runtime, test = pins("runtime.txt"), pins("test.txt")
    assert {k: test.get(k) for k in runtime} == runtime


def test_every_install_path_uses_the_pins_and_resolves_nothing():
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^UV := uv==[0-9][0-9.]*$", make, re.M), "the installer itself is pinned"
    assert "$(BIN)/pip install --quiet $(UV)" in make
    assert re.search(r"uv pip install --quiet .*--no-deps -r requirements/test\.txt", make)
    assert re.search(r"uv pip install --quiet .*--no-deps -e \.", make)
    assert "$(STAMP): pyproject.toml requirements/test.txt" in make
    assert "\nlock:" in make
    docker = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "pip install --no-deps -r requirements/runtime.txt" in docker
    assert "pip install --no-deps ." in docker
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
