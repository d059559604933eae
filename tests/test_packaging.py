"""The project's own packaging: building it prints no warning about our pyproject.toml, and the wheel
(what the Dockerfile installs with `pip install .`) holds every file the service reads at run time.

The build runs offline on a copy of the sources (pip, --no-build-isolation: the setuptools pinned in
requirements/, no index), so it neither needs the network nor leaves build/ or *.egg-info in the tree.
"""

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
PACKAGES = PYPROJECT["tool"]["setuptools"]["packages"]
TOP_LEVEL = sorted({name.split(".")[0] for name in PACKAGES})

# What setuptools, pip or Python print when something is wrong with a project's configuration: a warning
# category ("SetuptoolsDeprecationWarning:", "_Warning:"), pip's "WARNING:", distutils' "warning:".
# (Setuptools' "InformationOnly: Editable installation." note, printed for every editable install of a
# project laid out flat, is no warning and is not counted.)
WARNING_LINE = re.compile(r"warning", re.IGNORECASE)


def _source_copy(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for package in TOP_LEVEL:
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return src


def _pip(args, cwd):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PIP_", "PYTHONWARNINGS", "PYTHONDONTWRITEBYTECODE"))}
    # No index, no configuration file: the build uses what is installed and nothing else.
    env |= {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    done = subprocess.run([sys.executable, "-m", "pip", *args, "-v", "--no-deps", "--no-build-isolation"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    return output


def _warnings(output):
    return [line for line in output.splitlines() if WARNING_LINE.search(line)]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("wheel")
    src = _source_copy(tmp_path)
    output = _pip(["wheel", "--wheel-dir", str(tmp_path / "dist"), str(src)], cwd=tmp_path)
    [built] = (tmp_path / "dist").glob("tablepost-*.whl")
    return built, output


def test_building_the_wheel_prints_no_warning(wheel):
    _, output = wheel
    assert _warnings(output) == [], output[-6000:]


def test_the_wheel_holds_every_file_of_the_packages_the_service_reads(wheel):
    built, _ = wheel
    with zipfile.ZipFile(built) as archive:
        names = set(archive.namelist())
    # Every file of the sources' packages, data included (the static pages and scripts, the boards and
    # tiles as JSON): importlib.resources reads them from the installed package, so one missing here
    # is a page or a game that fails only once deployed.
    expected = {path.relative_to(ROOT).as_posix()
                for package in TOP_LEVEL for path in (ROOT / package).rglob("*")
                if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}
    assert expected - names == set()
    data = {name for name in expected if not name.endswith(".py")}
    # The ones the service reads at run time are among them (a guard against the glob above finding none).
    for needed in ("api/static/tiletum.html", "api/static/site.css", "api/static/game-page.js",
                   "api/static/favicon.svg", "tiletum/data/tiles.json", "tiletum/data/solo.json",
                   "carcassonne/data/base-tiles.json"):
        assert needed in data
    assert not any(name.startswith(("tests/", "docs/", "bench/")) for name in names)


def test_the_wheel_registers_the_games_it_hosts(wheel):
    # the service finds its games by the entry points the installed distribution declares
    # (games/registry.py): one per game, named after it, naming its spec
    built, _ = wheel
    with zipfile.ZipFile(built) as archive:
        [points] = [name for name in archive.namelist() if name.endswith(".dist-info/entry_points.txt")]
        text = archive.read(points).decode("utf-8")
    group = text.split("[tablepost.games]", 1)[1].split("\n[", 1)[0]
    registered = dict(line.split(" = ") for line in group.strip().splitlines())
    assert registered == {name: f"games.{name}:SPEC" for name in ("carcassonne", "pillars", "tiletum")}


def test_the_wheel_declares_the_licence_as_an_spdx_expression(wheel):
    built, _ = wheel
    with zipfile.ZipFile(built) as archive:
        [metadata] = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        headers = archive.read(metadata).decode("utf-8").split("\n\n", 1)[0]
    assert "License-Expression: LicenseRef-Proprietary" in headers.splitlines()
    assert not any(line.startswith("Classifier: License ::") for line in headers.splitlines())


def test_an_editable_install_prints_no_warning(tmp_path):
    # `pip install -e .` (make venv) has setuptools build an editable wheel through the same
    # configuration: the build hook pip calls (PEP 660) is called here the same way, in a process of
    # its own, without installing anything into the environment running the tests.
    src = _source_copy(tmp_path)
    (tmp_path / "dist").mkdir()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHONWARNINGS", "PYTHONDONTWRITEBYTECODE"))}
    hook = "import sys, setuptools.build_meta as b; print(b.build_editable(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", hook, str(tmp_path / "dist")], cwd=src, env=env,
                          capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert done.stdout.strip().splitlines()[-1].endswith(".editable-py3-none-any.whl"), output[-2000:]
    assert _warnings(output) == [], output[-6000:]
