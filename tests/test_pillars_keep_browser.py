"""Issue 42, "Pillars, smoother": more resources than may be carried over are returned in one
choice (which to keep), not a click per resource. Random moves over the API until a seat must
return resources; on its page (a phone), the keep form offers each resource it holds, suggests a
keep that fits, refuses to send a keep that does not, and plays the returns as one request: the
game then shows the seat holding exactly what it kept."""
from __future__ import annotations

import random

import requests

from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402

RES = ["stone", "wood", "sand", "metal"]


def _until_a_seat_must_return(url: str, g: dict) -> tuple[str, int, dict]:
    rng = random.Random(7)
    for _ in range(3000):
        s = requests.get(f"{url}/api/v1/games/{g['id']}", timeout=10).json()
        seat = s["to_act"][0]
        auth = {"Authorization": f"Bearer {g['seats'][seat]['token']}"}
        legal = requests.get(f"{url}/api/v1/games/{g['id']}/legal-moves", headers=auth, timeout=10).json()
        moves = [m["move"] for m in legal["moves"]]
        if moves and all(m.startswith("drop ") for m in moves):
            state = requests.get(f"{url}/api/v1/games/{g['id']}/state", headers=auth, timeout=10).json()
            return g["seats"][seat]["token"], seat, state
        rv = requests.post(f"{url}/api/v1/games/{g['id']}/moves", headers=auth, timeout=10,
                           json={"expected_version": legal["version"],
                                 "moves": [moves[rng.randrange(len(moves))]]})
        assert rv.status_code == 200, rv.text
    raise AssertionError("no seat had to return resources in 3000 moves")


def test_returning_surplus_resources_is_one_choice(redis_server, browser):
    with LiveServer(make_app(redis_server.url)) as server:
        g = requests.post(f"{server.url}/api/v1/games", timeout=10,
                          json={"game": "pillars", "seats": [{"name": "Ann"}, {"name": "Bob"}],
                                "options": {"seed": "keep-choice"}}).json()
        token, seat, state = _until_a_seat_must_return(server.url, g)
        have = {r: state["resources"][seat][r] for r in RES}
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/play/{g['id']}#token={token}")
        wait_until(page, "Number(document.body.dataset.version || 0) > 0")
        form = page.locator("#keep-form")
        expect(form).to_be_visible()
        limit = int(page.locator(f'#board-wrap [data-seat="{seat}"][data-carry]').get_attribute("data-carry"))
        inputs = {r: form.locator(f'input[name="{r}"]') for r, n in have.items() if n}
        assert set(inputs) == {r for r, n in have.items() if n}, "one field per resource held"
        submit = form.locator("button[type=submit]")
        # a keep of more than the limit cannot be sent
        for r, box in inputs.items():
            box.fill(str(have[r]))
        expect(submit).to_be_disabled()
        # keep the last resources first (not the suggestion), exactly the limit
        left, keep = limit, {}
        for r in reversed(list(inputs)):
            keep[r] = min(have[r], left)
            left -= keep[r]
        for r, box in inputs.items():
            box.fill(str(keep[r]))
        expect(submit).to_be_enabled()
        screenshot(page, "pillars-keep-choice-phone.png")
        before = int(page.locator("body").get_attribute("data-version"))
        submit.click()
        wait_until(page, f"Number(document.body.dataset.version || 0) > {before}")
        auth = {"Authorization": f"Bearer {token}"}
        after = requests.get(f"{server.url}/api/v1/games/{g['id']}/state", headers=auth, timeout=10).json()
        assert {r: after["resources"][seat][r] for r in RES} == {r: keep.get(r, 0) for r in RES}
        events = requests.get(f"{server.url}/api/v1/games/{g['id']}/events", timeout=10).json()["events"]
        drops = [e for e in events if e.get("move", "").startswith("drop ")]
        assert len(drops) == sum(have.values()) - limit
        assert page.locator("#error").text_content() == ""
