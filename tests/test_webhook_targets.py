"""Where a webhook may go (issue 27, application/webhooks.py ``check_url``, docs/bots.md "Where to"):
only public addresses, read the way the HTTP client reads the host (IDNA, the OS resolver, and
inet_aton's loose IPv4 forms), checked at registration and again before each delivery, with
the delivery's connection pinned to the address just checked (no DNS rebinding); loopback only
where the operator allows it. Over the real API and a real receiver on 127.0.0.1; the few tests
that need a name to resolve somewhere give the Webhooks object a resolver of their own."""
from __future__ import annotations

import time
import unicodedata

import pytest

from application import errors
from application.webhooks import Webhooks, address_allowed, check_url
from tests.conftest import make_app
from tests.test_webhooks import API, Receiver, bearer, move, new_game, subscribe

DISGUISED = [
    # addresses that are not public, though Python 3.11's is_private lets them through
    "https://100.100.100.200/", "https://100.64.0.1/", "https://192.0.0.8/", "https://[fec0::1]/",
    "https://224.0.0.1/", "https://[ff0e::1]/", "https://[::a00:1]/",
    # IPv6 forms that lead to a private IPv4 address: 6to4, NAT64, IPv4-mapped, Teredo
    "https://[2002:a9fe:a9fe::1]/", "https://[64:ff9b::a00:1]/", "https://[::ffff:10.0.0.1]/",
    "https://[::ffff:169.254.169.254]/", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    # what inet_aton (and so the resolver) reads as 10.0.0.1 or 0.0.0.0
    "https://10.1/", "https://0x0a.0.0.1/", "https://167772161/", "https://012.0.0.1/", "https://0/",
    "https://１０.０.０.１/", "https://10.0.0.1./",
    # a bracketed host that is no IPv6 address (was a 500)
    "https://[10.0.0.1]/",
    # ports out of range, control characters, spaces
    "https://example.org:0/", "https://example.org:65536/", "https://example.org:99999999/",
    "https://exa\x00mple.org/", "https://example.org/\r\nX-Injected: 1", "https://example.org/ x",
    "https://example.org/\u200b", "https://ｅxample.org/",
]


@pytest.fixture()
def app(redis_server):
    return make_app(redis_server.url)  # the operator's default: no loopback


def test_disguised_and_non_public_targets_get_a_clean_422(client):
    g = new_game(client)
    ann = g["seats"][0]["token"]
    for url in DISGUISED:
        r = subscribe(client, ann, url, game=g["id"])
        # control and format characters are refused by the text check every field has, before the URL is read
        codes = ({"bad-webhook-url", "invalid-request"}
                 if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in url)
                 else {"bad-webhook-url"})
        assert r.status_code == 422 and r.get_json()["code"] in codes, (url, r.status_code, r.get_data())
    assert client.get(f"{API}/webhooks", headers=bearer(ann), query_string={"game": g["id"]}).get_json() == {
        "webhooks": []}, "a refused registration left something behind"


def test_loopback_only_where_the_operator_allows_it(client, redis_server):
    """The delivery log must not become a port scanner of the worker's own host."""
    g = new_game(client)
    ann = g["seats"][0]["token"]
    receiver = Receiver()
    try:
        for url in (receiver.url, "https://localhost/", "https://[::1]/", "https://[::ffff:127.0.0.1]/",
                    "http://127.1:8080/", "https://0.0.0.0/"):
            r = subscribe(client, ann, url, game=g["id"])
            assert r.status_code == 422 and r.get_json()["code"] == "bad-webhook-url", url
        # a hook made where loopback was allowed is refused at delivery where it is not: no connection
        allowing = make_app(redis_server.url, WEBHOOK_ALLOW_LOOPBACK=True).test_client()
        hook = subscribe(allowing, ann, receiver.url, game=g["id"]).get_json()
        v = move(client, g)
        strict = Webhooks(client.application.extensions["tablepost.service"])
        assert strict.deliver(hook["id"], g["id"], v) == "retry"
        assert receiver.got == []
        log = client.get(f"{API}/webhooks/{hook['id']}", headers=bearer(ann)).get_json()["deliveries"]
        assert log[0]["ok"] is False and "status" not in log[0] and "public" in log[0]["error"]
        assert Webhooks(client.application.extensions["tablepost.service"], allow_loopback=True).deliver(
            hook["id"], g["id"], v) == "sent"
    finally:
        receiver.close()


def test_every_resolved_address_is_checked():
    """One private address among the answers is enough to refuse (the client may pick any)."""
    answers = {"mixed.test": ["93.184.216.34", "10.0.0.7"],
               "public.test": ["93.184.216.34", "2606:2800:220:1::1"], "mapped.test": ["::ffff:192.168.1.1"]}

    def resolve(host, port):
        return answers[host]
    target = check_url("https://public.test:8443/hook", resolve=resolve)
    assert target.host == "public.test" and target.port == 8443 and target.addresses[0] == "93.184.216.34"
    for host in ("mixed.test", "mapped.test"):
        with pytest.raises(errors.ServiceError) as e:
            check_url(f"https://{host}/", resolve=resolve)
        assert e.value.code == "bad-webhook-url"
    # the host the resolver is asked about is the one the HTTP client uses: IDNA-encoded, no brackets
    asked = []
    check_url("https://bücher.test/", resolve=lambda h, p: asked.append(h) or ["93.184.216.34"])
    assert asked == ["xn--bcher-kva.test"]


def test_a_resolver_that_hangs_does_not_hold_the_request():
    def slow(host, port):
        time.sleep(1.5)
        return ["93.184.216.34"]
    t0 = time.monotonic()
    with pytest.raises(errors.ServiceError) as e:
        check_url("https://slow.test/", resolve=slow, timeout=0.2)
    assert e.value.code == "bad-webhook-url" and time.monotonic() - t0 < 1.0


def test_the_delivery_connects_to_the_address_it_checked(client):
    """DNS rebinding: the name is resolved once, checked, and the connection goes to that address
    (the Host header still names the host). ``rebind.test`` resolves nowhere on this machine, so a
    second lookup by the HTTP client would fail; a name that now resolves to a private address is
    refused before any connection."""
    svc = client.application.extensions["tablepost.service"]
    answers = {"rebind.test": ["127.0.0.1"]}
    hooks = Webhooks(svc, allow_loopback=True, resolve=lambda host, port: answers[host])
    receiver = Receiver()
    try:
        g = new_game(client)
        ben = g["seats"][1]["token"]
        port = receiver.server.server_port
        hook = hooks.create(ben, f"http://rebind.test:{port}/hook", ["all"], g["id"])
        v = move(client, g)
        assert hooks.deliver(hook["id"], g["id"], v) == "sent"
        assert (receiver.got[-1]["headers"]["Host"] == f"rebind.test:{port}"
                and receiver.got[-1]["path"] == "/hook")
        answers["rebind.test"] = ["10.0.0.1"]  # the name now leads into the private network
        v = move(client, g)
        assert hooks.deliver(hook["id"], g["id"], v) == "retry"
        assert len(receiver.got) == 1
    finally:
        receiver.close()


@pytest.mark.parametrize("ip, ok", [
    # 6to4 of a public one
    ("93.184.216.34", True), ("2606:2800:220:1::1", True), ("2002:5db8:d822::1", True),
    ("64:ff9b::5db8:d822", True), ("10.0.0.1", False), ("172.16.0.1", False), ("192.168.0.1", False),
    ("169.254.169.254", False), ("100.64.0.1", False), ("192.0.0.8", False), ("198.18.0.1", False),
    ("240.0.0.1", False), ("255.255.255.255", False), ("127.0.0.1", False), ("0.0.0.0", False),
    ("::1", False), ("::", False), ("fe80::1%eth0", False), ("fc00::1", False), ("fec0::1", False),
    ("2002:a9fe:a9fe::1", False), ("2002:7f00:1::1", False), ("64:ff9b::7f00:1", False),
    ("64:ff9b:1::5db8:d822", False), ("::ffff:10.0.0.1", False), ("2001:db8::1", False), ("not an ip", False),
])
def test_address_allowed(ip, ok):
    assert address_allowed(ip) is ok


def test_loopback_allowed_only_on_request():
    assert address_allowed("127.0.0.1", allow_loopback=True) and address_allowed("::1", allow_loopback=True)
    assert address_allowed("::ffff:127.0.0.1", allow_loopback=True)
    assert (not address_allowed("0.0.0.0", allow_loopback=True)
            and not address_allowed("10.0.0.1", allow_loopback=True))
