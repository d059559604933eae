"""The game pages in a real browser: Playwright driving Debian's headless Chromium
(tests/browser.py; nothing downloads a browser) against a real `tablepost serve` (its own Redis,
gunicorn, the Celery workers and the seats worker), so the bot really answers.

Screenshots of the board go to tests/artifacts/. TABLEPOST_SKIP_BROWSER=1 skips these tests.
"""
from __future__ import annotations

import re
import time

import pytest
import requests

from api.redis_server import free_port
from tests.servers import Serve
from tests.browser import ARTIFACTS, require_browser, screenshot, wait_until


require_browser()

from playwright.sync_api import expect  # noqa: E402

WAIT_MS = 20_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`tablepost serve` with seeded games allowed and the bot worker, on free ports."""
    with Serve(tmp_path_factory.mktemp("browser-serve"), "--workers", "2", "--allow-seeded-games",
               "--mailin-port", str(free_port()),
               env={"TABLEPOST_SWEEP_SECONDS": "2", "TABLEPOST_BOT_DUE_SECONDS": "2"}) as running:
        yield running.url


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(viewport={"width": 1100, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(WAIT_MS)
    yield pg
    ctx.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#board").screenshot(path=str(ARTIFACTS / f"{name}-board.png"))
    page.screenshot(path=str(ARTIFACTS / f"{name}-page.png"), full_page=True)


# --- helpers over the API --------------------------------------------------------------------

def create(server: str, seats: list[dict], **options) -> dict:
    rv = requests.post(f"{server}/api/v1/games", json={"seats": seats, "options": options}, timeout=10)
    assert rv.status_code == 201, rv.text
    return rv.json()


def api_move(server: str, gid: str, token: str, move: str | None = None) -> dict:
    """Play ``move`` (default: a short choice) for the seat of ``token`` at the current version."""
    auth = {"Authorization": f"Bearer {token}"}
    legal = requests.get(f"{server}/api/v1/games/{gid}/legal-moves", headers=auth, timeout=10).json()
    moves = [m["move"] for m in legal["moves"]]
    if move is None:
        move = "end" if "end" in moves else next(m for m in moves if m != "undo")
    rv = requests.post(f"{server}/api/v1/games/{gid}/moves", headers=auth, timeout=10,
                       json={"expected_version": legal["version"], "moves": [move]})
    assert rv.status_code == 200, rv.text
    return rv.json()


def summary(server: str, gid: str) -> dict:
    return requests.get(f"{server}/api/v1/games/{gid}", timeout=10).json()


def rendered_version(page) -> int:
    return int(page.locator("body").get_attribute("data-version") or 0)


def wait_rendered_after(page, version: int) -> int:
    wait_until(page, f"Number(document.body.dataset.version || 0) > {version}", timeout=WAIT_MS)
    return rendered_version(page)


def wait_my_decision(page) -> None:
    """Until the page shows this seat's move buttons, fully rendered."""
    expect(page.locator("#moves button.move").first).to_be_visible(timeout=WAIT_MS)
    wait_until(page, "document.body.dataset.version", timeout=WAIT_MS)


def click_move(page, locator) -> int:
    before = rendered_version(page)
    locator.click()
    return wait_rendered_after(page, before)


def play_turn_by_clicking(page, max_clicks: int = 25) -> list[str]:
    """One whole turn: take the first die, then the first offered choice until `end` is legal,
    then `end`. Returns the moves clicked."""
    wait_my_decision(page)
    clicked = []
    take = page.locator('section[data-verb="take"] button.move').first
    clicked.append(take.get_attribute("data-move"))
    click_move(page, take)
    for _ in range(max_clicks):
        buttons = page.locator("#moves button.move")
        end = page.locator('section[data-verb="end"] button.move')
        target = end.first if end.count() else buttons.first
        clicked.append(target.get_attribute("data-move"))
        click_move(page, target)
        if clicked[-1] == "end":
            return clicked
    raise AssertionError(f"no end of turn after {clicked}")


# --- the tests -------------------------------------------------------------------------------

def test_create_a_solo_game_in_the_browser_play_a_turn_and_see_the_bot_answer(server, page):
    page.goto(server + "/")
    page.get_by_role("link", name="Start a new game").click()
    expect(page).to_have_url(server + "/play/new")
    page.get_by_label("Solo against the Cardinalbot").check()
    page.get_by_label("Your name").fill("Ada")
    page.get_by_label("Cardinalbot level").select_option("priest")
    page.locator("summary").click()
    page.get_by_label("Seed").fill("browser-solo")
    page.get_by_role("button", name="Create the game").click()
    link = page.locator("input.seat-link")
    expect(link).to_have_count(1)
    url = link.input_value()
    assert re.fullmatch(re.escape(server) + r"/play/[A-Za-z0-9]+#token=[^&?]+", url), url
    assert "?" not in url, "the token travels in the fragment only"
    page.get_by_role("button", name="Open my seat").click()
    page.wait_for_url(url)

    # the Cardinalbot (seat 0) moves first; then it is Ada's decision
    wait_my_decision(page)
    expect(page.locator("#status")).to_contain_text("To act: Ada (you)")
    expect(page.locator("#history")).to_contain_text("Cardinalbot took the")
    shot(page, "solo-start")

    # take a die, take it back with Undo, then play the whole turn by clicking
    first = page.locator('section[data-verb="take"] button.move').first
    click_move(page, first)
    expect(page.locator("#ap")).to_contain_text("AP left")
    expect(page.locator("#undo")).to_be_visible()
    click_move(page, page.locator("#undo"))
    expect(page.locator("#history li").last).to_contain_text("Ada took back their last move")
    # the bot answers after the end of Ada's turn (turn order may give Ada two turns in a row)
    for _ in range(3):
        started_at = rendered_version(page)
        clicked = play_turn_by_clicking(page)
        assert clicked[0].startswith("take ") and clicked[-1] == "end"
        expect(page.locator("#status")).to_contain_text("To act: Ada (you)", timeout=WAIT_MS)
        # the version of Ada's last "end" (not the page's version: the bot may have answered and
        # the stream drawn its moves before this line runs)
        ada_end = f"""Math.max(0, ...[...document.querySelectorAll('#history li')]
            .filter(li => li.value > {started_at} && li.textContent.startsWith('Ada ended their turn'))
            .map(li => li.value))"""
        wait_until(page, ada_end, timeout=WAIT_MS)
        ended_at = page.evaluate(ada_end)
        wait_my_decision(page)
        # the status and the history are drawn from separate answers (the stream's turn frame
        # may arrive first): give the history a moment to show the bot's moves
        bot_moves = f"""[...document.querySelectorAll('#history li')]
            .filter(li => li.value > {ended_at} && li.textContent.startsWith('Cardinalbot ')).length"""
        try:
            wait_until(page, bot_moves, timeout=5000)
        except Exception:  # Ada had two turns in a row: no bot move yet
            pass
        bot_after = page.evaluate(bot_moves)
        if bot_after:
            break
    assert bot_after, "the Cardinalbot answered Ada's turn: " + page.evaluate(
        "[...document.querySelectorAll('#history li')].slice(-12).map(li => li.value + ' ' + "
        "li.textContent).join(' | ')")
    shot(page, "solo-after-bot")


def test_reach_the_end_of_a_seeded_solo_game_by_clicking_the_last_turn(server, page):
    g = create(server, [{"name": "Eve"}, {"name": "Cardinalbot", "kind": "cardinalbot"}],
               seed="browser-end", solo={"level": "priest"})
    gid, token = g["id"], g["seats"][1]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    # drive the game through the API to Eve's last turn (round 4, third turn, nothing taken yet)
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, summary(server, gid)
        s = requests.get(f"{server}/api/v1/games/{gid}/state", headers=auth, timeout=10).json()
        assert s["phase"] != "over"
        if s["actor"] != 1:
            time.sleep(0.05)
            continue
        if s["round"] == 4 and s["cycle"] >= 2 and s["turn"]["die"] is None and not s["agenda"]:
            break
        api_move(server, gid, token)
    page.goto(f"{server}/play/{gid}#token={token}&poll=0.5")
    wait_my_decision(page)
    expect(page.locator("#status")).to_contain_text("Round 4 of 4")
    clicked = play_turn_by_clicking(page)
    assert clicked[-1] == "end"
    # the bot may still have its last turn; then the result and the fairness check show
    expect(page.locator("#result")).to_contain_text("wins with", timeout=WAIT_MS)
    expect(page.locator("#status")).to_contain_text("Game over")
    expect(page.locator("#fairness-box")).to_be_visible()
    expect(page.locator("#seed")).to_have_text("browser-end")
    expect(page.locator("#fair-ok")).to_contain_text("Checked: the secret revealed now is the one locked in")
    expect(page.locator("#verify")).to_contain_text("tiletum-engine verify")
    # issue 42: the check in words; the hash, the seed and the command one click away
    expect(page.locator("#commitment")).to_be_hidden()
    page.locator("#fairness-box summary").click()
    expect(page.locator("#commitment")).to_be_visible()
    expect(page.locator("#play")).to_be_hidden()   # no "Your turn" over a finished game
    final = summary(server, gid)
    assert final["status"] == "finished"
    winner = final["seats"][final["winner"]]
    expect(page.locator("#result")).to_have_text(f"{winner['name']} wins with {winner['score']} VP.")
    href = page.locator("#record").get_attribute("href")
    record = requests.get(server + href, timeout=10).text
    assert "Seed" in record and "browser-end" in record
    shot(page, "solo-finished")


@pytest.fixture()
def duel(server):
    """A seeded two-player game: seat 0 (Ann) is to act."""
    g = create(server, [{"name": "Ann"}, {"name": "Ben"}], seed="browser-duel")
    assert summary(server, g["id"])["to_act"] == [0]
    return g


def test_an_illegal_typed_move_shows_the_servers_reason_in_words(server, page, duel):
    page.goto(f"{server}/play/{duel['id']}#token={duel['seats'][0]['token']}&poll=600")
    wait_my_decision(page)
    page.get_by_label("Type a move in notation").fill("take X9")
    page.get_by_role("button", name="Play", exact=True).click()
    alert = page.get_by_role("alert")
    expect(alert).not_to_be_empty()
    assert "422" not in alert.inner_text(), "no HTTP status for players"
    auth = {"Authorization": f"Bearer {duel['seats'][0]['token']}"}
    problem = requests.post(f"{server}/api/v1/games/{duel['id']}/moves", headers=auth, timeout=10,
                            json={"expected_version": 1, "moves": ["take X9"]}).json()
    expect(alert).to_contain_text(problem["detail"])
    # a legal typed move then plays and clears the message
    move = page.locator('section[data-verb="take"] button.move').first.get_attribute("data-move")
    page.get_by_label("Type a move in notation").fill(move)
    before = rendered_version(page)
    page.get_by_label("Type a move in notation").press("Enter")
    assert wait_rendered_after(page, before) == 2
    expect(alert).to_have_text("")


def test_a_stale_submission_says_the_game_moved_on(server, page, duel):
    token = duel["seats"][0]["token"]
    page.goto(f"{server}/play/{duel['id']}#token={token}&poll=600&stream=0")  # neither: the page stays at v1
    wait_my_decision(page)
    api_move(server, duel["id"], token, page.locator('section[data-verb="take"] button.move').nth(1)
             .get_attribute("data-move"))
    page.locator('section[data-verb="take"] button.move').first.click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("The game moved on meanwhile")
    # and the page has caught up with the game
    wait_until(page, "Number(document.body.dataset.version) === 2")


def test_a_spectator_page_updates_after_a_move_through_the_api(server, page, duel):
    page.goto(f"{server}/play/{duel['id']}#poll=0.3")
    expect(page.locator("#status")).to_contain_text("To act: Ann.")
    wait_until(page, "document.body.dataset.version === '1'")
    expect(page.locator("#play")).to_be_hidden()
    assert page.locator("#moves button").count() == 0, "spectators get no move buttons"
    board_before = page.locator("#board").inner_html()
    api_move(server, duel["id"], duel["seats"][0]["token"])
    wait_until(page, "Number(document.body.dataset.version) === 2", timeout=WAIT_MS)
    expect(page.locator("#history li")).to_have_count(2)
    expect(page.locator("#history li").last).to_contain_text("Ann took the")
    assert page.locator("#board").inner_html() != board_before
    expect(page.locator("#ap")).to_contain_text("Ann:")
    shot(page, "spectator")


def test_the_page_follows_the_event_stream_without_polling(server, page, duel):
    """With polling off (#poll=600) only the event stream can tell the page of a move."""
    page.goto(f"{server}/play/{duel['id']}#poll=600")
    wait_until(page, "document.body.dataset.version === '1'")
    page.wait_for_timeout(300)  # the stream opens after the first read
    api_move(server, duel["id"], duel["seats"][0]["token"])
    wait_until(page, "Number(document.body.dataset.version) === 2", timeout=10_000)
    expect(page.locator("#history li")).to_have_count(2)


def test_other_seats_see_the_board_read_only(server, page, duel):
    page.goto(f"{server}/play/{duel['id']}#token={duel['seats'][1]['token']}")
    expect(page.locator("#hint")).to_contain_text("Not your decision now: waiting for Ann")
    assert page.locator("#moves button").count() == 0
    expect(page.locator("#type-form")).to_be_hidden()


def test_the_keyboard_reaches_the_board_and_enter_plays_a_move(server, page, duel):
    page.goto(f"{server}/play/{duel['id']}#token={duel['seats'][0]['token']}&poll=600")
    wait_my_decision(page)
    focused = []
    for _ in range(20):  # the site links, the board's tools, its box, then its parts that play a move
        page.keyboard.press("Tab")
        focused.append(
            page.evaluate("document.activeElement.dataset.move ? 'move' : document.activeElement.id "
                          "|| document.activeElement.tagName"))
        if focused[-1] == "move":
            break
    assert focused[-1] == "move", f"Tab order: {focused}"
    assert focused[:2] == ["A", "A"], "the site links come first"
    assert page.evaluate("!!document.activeElement.closest('#board')"), "a part of the board"
    move = page.evaluate("document.activeElement.dataset.move")
    assert "|" not in move, "a die with one legal move plays it at once"
    before = rendered_version(page)
    page.keyboard.press("Enter")
    assert wait_rendered_after(page, before) == 2
    expect(page.locator("#history li").last).to_contain_text("Ann took the")
    events = requests.get(f"{server}/api/v1/games/{duel['id']}/events?after=1", timeout=10).json()["events"]
    assert events[0]["move"] == move
    # the typed-move field and the Play button are reachable too
    page.get_by_label("Type a move in notation").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "move-submit"


@pytest.mark.parametrize("path", ["/", "/play/new", "/play/{game}#token={token}"])
def test_phone_width_has_no_horizontal_overflow(server, browser, duel, path):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(WAIT_MS)
        pg.goto(server + path.format(game=duel["id"], token=duel["seats"][0]["token"]))
        if "play/" in path and "new" not in path:
            wait_my_decision(pg)
        overflow = pg.evaluate("""() => {
            const main = document.querySelector('main');
            return {doc: document.documentElement.scrollWidth, main: main.scrollWidth,
                    view: window.innerWidth};
        }""")
        assert overflow["doc"] <= overflow["view"] and overflow["main"] <= overflow["view"], overflow
        if "token" in path:
            # on a phone the board is drawn large enough to read and pans inside its own box
            assert pg.locator("#board-wrap").bounding_box()["width"] <= 390
            assert pg.locator("#board").bounding_box()["width"] > 2 * 390
            screenshot(pg, "phone-page.png")
            pg.locator("#board-wrap").evaluate("box => box.scrollLeft = 100")
            assert pg.locator("#board-wrap").evaluate("box => box.scrollLeft") > 0, "the box pans"
            pg.get_by_role("button", name="Zoom in").click()
            assert pg.locator("#board").bounding_box()["width"] > 3 * 390
            assert pg.evaluate("document.documentElement.scrollWidth") <= 390
            screenshot(pg, "phone-board-zoomed.png")
            pg.get_by_role("button", name="Fit", exact=True).click()
            assert pg.locator("#board").bounding_box()["width"] <= 390
    finally:
        ctx.close()
