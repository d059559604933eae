"""The lobby in headless Chromium (Debian's, tests/browser.py) against the app over real HTTP
(issue 29): a game is posted from one browser context, joined from another through the join form,
confirmed by the link of the email (read from the file transport the outbox wrote it to), and it
starts; both players see it on their dashboards. The lobby page passes axe-core and fits a phone
(tests/test_site_pages.py's checks), with screenshots at 1366x900 and 390x844.
TABLEPOST_SKIP_BROWSER=1 skips it."""
from __future__ import annotations

import email
import email.policy
import re
import uuid

from application.dashboard import dashboard_key_for, remember_address
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SinkTransport
from tests.browser import require_browser
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402

from tests.test_site_pages import SIZES, check_page  # noqa: E402


def test_a_game_posted_in_one_browser_is_joined_from_another_by_the_emailed_link(redis_server, tmp_path,
                                                                                  browser):
    box = tmp_path / "mail"
    tasks = {}

    def send_task(name, args, queue):   # the workers' tasks, run at once (the broker is not under test)
        if name in tasks:
            tasks[name](*args)

    app = make_app(redis_server.url, SEND_TASK=send_task)
    service = app.extensions["tablepost.service"]
    ann, bob = f"ann-{uuid.uuid4().hex[:8]}@lobby.test", f"bob-{uuid.uuid4().hex[:8]}@lobby.test"
    with LiveServer(app) as server:
        notifier = Notifier(service, Outbox(service.store.r, SinkTransport(box)),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url=server.url))
        tasks["workers.send_lobby_join"] = notifier.send_lobby_join
        host = browser.new_context(viewport=SIZES["desktop"]).new_page()
        host.set_default_timeout(20_000)
        host.goto(server.url + "/play/lobby")
        expect(host.locator(".site-header nav a[aria-current=page]")).to_have_text("Lobby")
        host.locator("#p-players").select_option("2")
        host_name = "Ann " + uuid.uuid4().hex[:6]  # this test's own: other tests post games by "Ann"
        host.locator("#p-name").fill(host_name)
        host.locator("#p-email").fill(ann)
        host.get_by_role("button", name="Post the game").click()
        expect(host.locator("#posted")).to_be_visible()
        invite = host.locator("#posted-invite").text_content()
        gid = re.search(r"#game=([^&]+)", invite).group(1)
        host.size = "desktop"
        check_page(host, "lobby")

        guest_ctx = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)
        guest = guest_ctx.new_page()
        guest.set_default_timeout(20_000)
        guest.goto(server.url + "/play/lobby")
        card = guest.locator("#open-list li").filter(has_text=host_name)
        expect(card).to_have_count(1)
        card.get_by_role("button", name="Join this game").click()
        guest.locator("#join-name").fill("Bob")
        guest.locator("#join-email").fill(bob)
        guest.get_by_role("button", name="Join", exact=True).click()
        expect(guest.locator("#join-done")).to_contain_text("Check your email")
        guest.size = "phone"
        check_page(guest, "lobby")

        (eml,) = [f for f in box.glob("*.eml") if "bob-" in f.name]
        msg = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
        link = re.search(r"(http\S+/play/lobby#join=\S+)",
                         msg.get_body(("plain",)).get_content()).group(1)
        guest.goto(link)
        expect(guest.locator("#focus-h")).to_have_text("The game has started")
        guest.locator("#seat-link").click()
        expect(guest).to_have_url(re.compile(rf"/play/{gid}#token=L1\."))
        summary = guest.request.get(f"{server.url}/api/v1/games/{gid}").json()
        assert (summary["status"] == "active"
                and [s["name"] for s in summary["seats"]] == [host_name, "Bob"])
        # opened again after the start, the link leads back to the seat (its link, never the token)
        guest.goto(link)
        expect(guest.locator("#focus-text")).to_contain_text("You took this seat with this link")
        guest.locator("#seat-link").click()
        expect(guest).to_have_url(re.compile(rf"/play/{gid}#token=L1\."))

        for page, who in ((host, ann), (guest, bob)):
            page.goto(f"{server.url}/me#key={dashboard_key_for(service.store.r, who)}")
            expect(page.locator(f"a[href^='/play/{gid}#token=']")).to_have_count(1)


def test_the_creator_cancels_a_posted_game_from_its_page(redis_server, tmp_path, browser):
    box = tmp_path / "mail"
    tasks = {}

    def send_task(name, args, queue):
        if name in tasks:
            tasks[name](*args)

    app = make_app(redis_server.url, SEND_TASK=send_task)
    service = app.extensions["tablepost.service"]
    ann = f"ann-{uuid.uuid4().hex[:8]}@lobby.test"
    with LiveServer(app) as server:
        cfg = MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test", public_url=server.url)
        notifier = Notifier(service, Outbox(service.store.r, SinkTransport(box)), cfg)
        lobby = app.extensions["tablepost.lobby"]
        tasks["workers.lobby_cancelled"] = lambda gid: lobby.tell_cancelled(gid, notifier.lobby_cancelled)
        host = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True).new_page()
        host.set_default_timeout(20_000)
        host.size = "phone"
        host.goto(server.url + "/play/lobby")
        host.locator("#p-players").select_option("2")
        host.locator("#p-name").fill("Ann")
        host.locator("#p-email").fill(ann)
        host.get_by_role("button", name="Post the game").click()
        expect(host.locator("#posted")).to_be_visible()
        gid = re.search(r"#game=([^&]+)", host.locator("#posted-invite").text_content()).group(1)
        manage = host.locator("#posted-manage").get_attribute("href")
        # issue 42: the creator's link explained in words, never a raw token on its own
        expect(host.locator("#posted")).to_contain_text("Your link to manage this game")
        assert host.locator("#posted-manage-url").text_content().endswith(manage)
        expect(host.locator("#posted")).not_to_contain_text("token")
        # the dashboard lists it before it starts, with the link to the seat
        remember_address(service.store.r, ann)   # an address with a dashboard already
        host.goto(f"{server.url}/me#key={dashboard_key_for(service.store.r, ann)}")
        listed = host.locator(f"#not-started a[href^='/play/{gid}#token=L0.']")
        expect(listed).to_have_count(1)
        expect(listed).to_contain_text("1 seat still open")
        check_page(host, "me-not-started")
        host.goto(server.url + manage)
        expect(host).to_have_url(re.compile(rf"/play/{gid}#creator="))
        cancel = host.get_by_role("button", name="Cancel this game")
        expect(cancel).to_be_visible()
        join_button = host.locator("#focus-actions").get_by_role("button", name="Join this game")
        expect(join_button).to_have_count(0)
        check_page(host, "lobby-creator")
        host.once("dialog", lambda d: d.accept())
        cancel.click()
        expect(host.locator("#focus-text")).to_contain_text("You cancelled this game")
        assert host.request.get(f"{server.url}/api/v1/games/{gid}").json()["status"] == "cancelled"
        # no email: the only seated player cancelled it herself, and a cancellation is told only to
        # players who confirmed their seat (docs/pbem.md, "Email by consent")
        assert [f for f in box.glob("*.eml") if "ann-" in f.name] == []
        host.reload()
        expect(host.locator("#focus-text")).to_contain_text("cancelled by the player who posted it")
