"""Whether an inbound reply's author is who its ``From`` says (docs/pbem.md, "Sender authentication").

A reply counts (plays, resigns, posts to the table) only when its sender is authenticated. The
service checks no signature itself: the mail server in front of it (the MX, or the provider behind
the inbound webhook) does, and records what it found in an ``Authentication-Results`` header
(RFC 8601), read here with ``authres``. Only the headers of our own server count, named by its
authserv-id (``TABLEPOST_MAIL_AUTHSERV_ID``): anyone can write such a header into their own email.

A reply is authenticated when our server's results say

* ``dmarc=pass`` (and no other DMARC result), its ``header.from``, if given, aligned with the From
  domain; or, where DMARC gave no verdict (no result, or ``none``: the domain publishes no policy),
* ``dkim=pass`` for a signing domain (``header.d``, else the domain of ``header.i``) aligned with the
  From domain, or ``spf=pass`` for an envelope sender (``smtp.mailfrom``) aligned with it.

Aligned is DMARC's relaxed alignment: the same organizational domain (``mail.example.co.uk`` and
``example.co.uk``), by the Public Suffix List that ``publicsuffixlist`` ships. Any DMARC result other
than ``pass`` or ``none`` (``fail``, ``temperror``, ...), a header of ours that cannot be read, or
results that contradict each other (``dmarc=pass`` with ``dmarc=none``, ``dkim=pass`` with
``dkim=none``, two SPF results) refuse the reply: a forged header of our id beside the real one shows
so. Without an authserv-id (no mail server in front: the embedded listener of ``tablepost serve``),
:data:`ACCEPT` or :data:`REFUSE` (``TABLEPOST_MAIL_UNAUTHENTICATED``) says whether a reply counts."""
from __future__ import annotations

import email.utils
import logging
from functools import lru_cache

import authres
from publicsuffixlist import PublicSuffixList

log = logging.getLogger("tablepost.mailin")

ACCEPT, REFUSE = "accept", "refuse"   # TABLEPOST_MAIL_UNAUTHENTICATED: replies nobody authenticated
POLICIES = (ACCEPT, REFUSE)


@lru_cache(maxsize=1)
def _psl() -> PublicSuffixList:
    return PublicSuffixList()   # the list the package ships: no network


def org_domain(domain: str) -> str:
    """The organizational domain: the registrable one under its public suffix (``a.b.example.org`` ->
    ``example.org``); a domain that is itself a public suffix is its own."""
    d = domain.strip().strip(".").lower()
    return _psl().privatesuffix(d) or d


def aligned(a: str | None, b: str | None) -> bool:
    """DMARC's relaxed alignment: ``a`` and ``b`` share their organizational domain."""
    if not a or not b:
        return False
    return org_domain(a) == org_domain(b)


def _domain(value: str | None) -> str | None:
    """The domain of ``user@domain``, ``@domain`` or ``domain``."""
    if not value:
        return None
    d = value.strip().strip("<>").rpartition("@")[2].strip().strip(".").lower()
    return d or None


def from_domain(msg) -> str | None:
    try:
        pairs = email.utils.getaddresses([str(msg.get("From") or "")])
    except Exception:
        return None
    return next((_domain(a) for _, a in pairs if a and "@" in a), None)


def _prop(result, ptype: str, name: str) -> str | None:
    for p in result.properties:
        if p.type.lower() == ptype and p.name.lower() == name:
            return str(p.value)
    return None


def _ours(msg, authserv_id: str) -> list | None:
    """The results our server recorded (authres results), or None when one of its headers cannot
    be read."""
    ours: list = []
    for value in msg.get_all("Authentication-Results") or []:
        text = " ".join(str(value).split())
        try:
            header = authres.parse_value(text)
        except Exception:   # authres.SyntaxError and the like: ours only if it names our id
            first = text.split(";", 1)[0].split()
            if first and first[0].lower() == authserv_id.lower():
                return None
            continue
        if (header.authserv_id or "").lower() == authserv_id.lower():
            ours += list(header.results)
    return ours


def check(msg, authserv_id: str) -> str | None:
    """None when our server (``authserv_id``) authenticated the message's From, else why not (for
    the log)."""
    ours = _ours(msg, authserv_id)
    if ours is None:
        return f"an Authentication-Results header of {authserv_id} cannot be read"
    if not ours:
        return f"no sender checks recorded by {authserv_id}"
    domain = from_domain(msg)
    if domain is None:
        return "no From domain"
    by: dict[str, list] = {}   # authres's results (untyped), by method
    for r in ours:
        by.setdefault(r.method.lower(), []).append(r)
    dmarc = {r.result.lower() for r in by.get("dmarc", [])}
    if dmarc - {"pass", "none"}:
        return "dmarc=" + ",".join(sorted(dmarc - {"pass", "none"}))
    if dmarc == {"pass"}:
        if all(aligned(_prop(r, "header", "from") or domain, domain) for r in by["dmarc"]):
            return None
        return "dmarc=pass for another domain than From's"
    if len(dmarc) > 1:
        return "contradicting DMARC results"
    dkim = by.get("dkim", [])
    if not any(r.result.lower() == "none" for r in dkim):
        for r in dkim:
            signer = _prop(r, "header", "d") or _domain(_prop(r, "header", "i"))
            if r.result.lower() == "pass" and aligned(signer, domain):
                return None
    spf = by.get("spf", [])
    if len(spf) == 1 and spf[0].result.lower() == "pass" \
            and aligned(_domain(_prop(spf[0], "smtp", "mailfrom")), domain):
        return None
    return "no pass of DMARC, nor of DKIM or SPF aligned with the From domain"


def authenticated(msg, authserv_id: str) -> bool:
    """Whether our own mail server (``authserv_id``, RFC 8601) authenticated the message's From."""
    return check(msg, authserv_id) is None


def sender_refused(msg, authserv_id: str | None, unauthenticated: str) -> str | None:
    """Why a reply does not count (for the log), or None when it does: with an authserv-id, unless
    that server authenticated it; without one, when ``unauthenticated`` is :data:`REFUSE`."""
    if authserv_id:
        try:
            return check(msg, authserv_id)
        except Exception:   # never let a header we cannot read count as a pass
            log.warning("mailin: could not read the sender checks", exc_info=True)
            return "the sender checks could not be read"
    return None if unauthenticated == ACCEPT else "no mail server in front authenticates senders"
