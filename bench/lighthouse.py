"""Lighthouse (mobile, its default) on every game page, as users get them (prints figures; not a test).

    python bench/lighthouse.py [--games tiletum,carcassonne,pillars] [--views seat,spectator]
                               [--langs en,de,fr] [--runs N]

A real ``tablepost serve --no-workers`` (the API and pages as ``make run`` serves them; its own Redis:
tests/servers.py ``Serve``) gets one 2-player game of each title; Lighthouse loads each game's page as
the seat to move (``#token=``) and as a spectator (no token), in each language asked for (``?lang=``,
the footer's switch: issue 53 asks the goals of every game page in each language), in Debian's Chromium
headless shell, with its default mobile emulation and simulated throttling. Printed per page: the
performance, accessibility, best-practices and SEO scores, the layout shift, total blocking time,
largest contentful paint and the share of legible text (Lighthouse's font-size audit), and the median
over ``--runs`` runs. Goals (issue 42): performance at least 95, accessibility 100, layout shift under
0.1, legible text.

Lighthouse itself is an npm package pinned in tools/lighthouse (package.json, package-lock.json):
``npm ci --prefix tools/lighthouse`` installs it there (git-ignored); ``.ci/run`` does so. The
figures are noisy on a shared machine (Lighthouse warns when the CPU is slower than it expects:
that warning is printed): compare pages measured in one run.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import requests  # noqa: E402

from tests.servers import Serve  # noqa: E402

LIGHTHOUSE = Path(ROOT) / "tools" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
BROWSERS = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
AUDITS = {"cls": "cumulative-layout-shift", "tbt": "total-blocking-time", "lcp": "largest-contentful-paint",
          "legible": "font-size"}

# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "carcassonne", "--views", "seat", "--langs", "de"]


def lighthouse() -> str:
    found = str(LIGHTHOUSE) if LIGHTHOUSE.exists() else shutil.which("lighthouse")
    if found is None:
        sys.exit("bench/lighthouse.py: Lighthouse is not installed: npm ci --prefix tools/lighthouse")
    return found


def browser() -> str:
    for path in BROWSERS:
        if os.path.exists(path):
            return path
    sys.exit("bench/lighthouse.py: no Chromium (apt-get install chromium-headless-shell)")


def audit(tool: str, url: str, out: Path) -> dict:
    """One Lighthouse run of ``url``: its scores and the figures above."""
    env = dict(os.environ, CHROME_PATH=browser())
    proc = subprocess.run(
        [tool, url, "--quiet", "--output=json", f"--output-path={out}",
         "--chrome-flags=--headless --no-sandbox --disable-gpu"],
        env=env, capture_output=True, text=True, timeout=240)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"lighthouse failed ({proc.returncode}) on {url.split('#')[0]}:\n"
                           f"{proc.stderr[-2000:]}")
    report = json.loads(out.read_text())
    figures = {name: round(c["score"] * 100) for name, c in report["categories"].items()}
    for key, name in AUDITS.items():
        a = report["audits"][name]
        figures[key] = a.get("numericValue") if key != "legible" else _legible(a)
    figures["slow_cpu"] = any("slower CPU" in w for w in report.get("runWarnings", []))
    return figures


def _legible(a: dict) -> float:
    """The share of text Lighthouse finds legible (its font-size audit's '55.2% legible text')."""
    shown = a.get("displayValue") or ""
    return float(shown.split("%")[0]) if "%" in shown else (100.0 if a.get("score") == 1 else 0.0)


def pages(url: str, games: list[str], langs: list[str]) -> dict[tuple[str, str, str], str]:
    """A 2-player game of each title, created through the API: each game's page as the seat to move
    and as a spectator, in each language."""
    out = {}
    for game in games:
        body = {"game": game, "seats": [{"name": "Ann"}, {"name": "Ben"}]}
        rv = requests.post(url + "/api/v1/games", json=body, timeout=30)
        rv.raise_for_status()
        g = rv.json()
        actor = requests.get(f"{url}/api/v1/games/{g['id']}", timeout=30).json()
        seat = next((s for s in g["seats"] if s["seat"] == actor.get("to_act", 0)), g["seats"][0])
        for lang in langs:
            out[(game, "seat", lang)] = f"{url}/play/{g['id']}?lang={lang}#token={seat['token']}"
            out[(game, "spectator", lang)] = f"{url}/play/{g['id']}?lang={lang}"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="tiletum,carcassonne,pillars", help="which games' pages (all three)")
    ap.add_argument("--views", default="seat,spectator", help="seat (the seat to move) and/or spectator")
    ap.add_argument("--langs", default="en,de,fr", help="the pages' languages (en,de,fr)")
    ap.add_argument("--runs", type=int, default=1, metavar="N", help="runs per page, median printed (1)")
    ap.add_argument("--reports", type=Path, metavar="DIR",
                    help="keep Lighthouse's JSON reports there (which audits fail, and why)")
    a = ap.parse_args(argv)
    games = [g for g in a.games.split(",") if g]
    views = [v for v in a.views.split(",") if v]
    langs = [v for v in a.langs.split(",") if v]
    if not langs:
        ap.error("--langs: at least one language")
    if set(views) - {"seat", "spectator"} or not views:
        ap.error("--views: seat and/or spectator")
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    tool = lighthouse()
    data = Path(tempfile.mkdtemp(prefix="tablepost-bench-lighthouse-"))
    env = {"TABLEPOST_CREATE_LIMIT": "100000/hour", "TABLEPOST_RATE_LIMIT": "100000"}
    print(f"Lighthouse (mobile, simulated throttling) on the game pages of tablepost serve; "
          f"median of {a.runs} run(s) each", flush=True)
    print(f"{'page':<27} {'perf':>4} {'a11y':>4} {'bp':>4} {'seo':>4} {'CLS':>6} {'TBT ms':>7} "
          f"{'LCP ms':>7} {'legible':>8}")
    worst = 100
    try:
        with Serve(data, "--no-workers", env=env) as serve:
            for (game, view, lang), url in pages(serve.url, games, langs).items():
                if view not in views:
                    continue
                runs = [audit(tool, url, data / f"{game}-{view}-{lang}-{i}.json") for i in range(a.runs)]
                med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "slow_cpu"}
                worst = min(worst, med["performance"])
                slow = any(r["slow_cpu"] for r in runs)
                page = f"{game} as {view} {lang}"
                print(f"{page:<27} {med['performance']:>4.0f} {med['accessibility']:>4.0f} "
                      f"{med['best-practices']:>4.0f} {med['seo']:>4.0f} {med['cls']:>6.3f} "
                      f"{med['tbt']:>7.0f} {med['lcp']:>7.0f} {med['legible']:>7.1f}%"
                      + ("  (Lighthouse: this CPU is slower than it expects)" if slow else ""), flush=True)
    finally:
        if a.reports:
            a.reports.mkdir(parents=True, exist_ok=True)
            for report in data.glob("*.json"):
                shutil.copy(report, a.reports / report.name)
        shutil.rmtree(data, ignore_errors=True)
    print(f"lowest performance score: {worst} (goal: at least 95 on every game page)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
