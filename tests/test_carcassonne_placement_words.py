"""A Carcassonne turn email, read with its pictures off, says what each legal placement does
("closes Ada's city: 8 points to Ada", "extends your road to 3 tiles", "starts a cloister"), computed
by the engine (carcassonne/effects.py): the points it promises, and to whom, are what the engine's
scoring gives when the placement is played."""
from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from carcassonne.effects import placement_effects

NAMES = ["Ada", "Bob", "Cid", "Dee"]
PROMISE = re.compile(r"(?:[Cc]loses|[Cc]ompletes) [^:;.]*?: (\d+) points? to ([^;.]+)")


def _position(seed: int, steps: int, players: int):
    g = games.CARCASSONNE
    rng = random.Random(seed)
    state, _ = g.new_game(players, f"w{seed}", {})
    for _ in range(steps):
        if g.is_over(state):
            break
        _, state = g.play(state, g.actor(state), rng.choice(g.legal_moves(state))[0], f"w{seed}")
    return state


def _gains(words: str, viewer: int, players: int) -> list[int]:
    """The points each seat gets by what the words promise."""
    out = [0] * players
    for points, who in PROMISE.findall(words):
        for name in re.split(r", | and ", who):
            out[viewer if name == "you" else NAMES.index(name)] += int(points)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 60), players=st.integers(2, 4))
def test_the_words_of_each_placement_promise_what_the_scoring_gives(seed, steps, players):
    g = games.CARCASSONNE
    state = _position(seed, steps, players)
    if g.is_over(state) or not state.pile:   # the last tile: the final scoring follows at once
        return
    seat = g.actor(state)
    for head, words in g.email_moves(state, seat, NAMES[:players]):
        assert words[:1].isupper() and "The tile alone" in words, words
        _, after = g.play(state, seat, head, f"w{seed}")
        gained = [b - a for a, b in zip(state.scores, after.scores)]
        assert _gains(words, seat, players) == gained, (head, words, gained)
        # a placement that closes something says so, whether or not anyone scores
        closes = re.search(r"[Cc]loses|[Cc]ompletes", words)
        assert closes or gained == [0] * players


def test_the_words_name_the_owner_and_the_viewer():
    """Spot checks of the phrasing on a position where a seat's road or city grows or closes."""
    g = games.CARCASSONNE
    seen = set()
    for seed in range(40):
        state = _position(seed, 12, 2)
        if g.is_over(state):
            continue
        seat = g.actor(state)
        for head, _ in g.email_moves(state, seat, NAMES[:2]):
            x, y = (int(v) for v in head.split()[1].split(","))
            for phrase in placement_effects(state, x, y, int(head.split()[2][1:]), seat, NAMES[:2]):
                kind = re.match(r"(closes|completes|extends|starts|surrounds) "
                                r"(your|Ada's|Bob's|an unclaimed|a)\b", phrase)
                assert kind, phrase
                seen.add(kind.group(1))
                if phrase.startswith(("closes your", "completes your")):
                    assert "to you" in phrase
                if re.match(r"(closes|completes) an unclaimed", phrase):
                    assert "but no" in phrase
    assert {"closes", "extends", "starts"} <= seen, seen


def test_the_email_lists_the_words(redis_client):
    """The turn email's text part, as sent, carries the words for each placement."""
    from application.game_service import GameService
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox

    class T:
        sent: list = []

        def send(self, m):
            self.sent.append(m)
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    n = Notifier(svc, Outbox(redis_client, T()), MailConfig(secret="s", domain="pbem.test",
                                                          from_addr="x@pbem.test", public_url="http://x",
                                                          pictures=False))
    gid = svc.create_game([{"name": "Ada", "email": "ada@words.test"}, {"name": "Bob"}], {"seed": "words"},
                          game="carcassonne")["id"]
    n.notify(gid, 1)
    text = T.sent[-1].get_body(("plain",)).get_content()
    _, state = svc.load(gid)
    for head, words in games.CARCASSONNE.email_moves(state, 0, ["Ada", "Bob"]):
        assert f"  {head} — {words}" in text
    assert re.search(r"(Starts|Extends|Closes|Completes) ", text)


def test_a_placement_says_each_thing_once():
    """A crossing starts three or four roads at once: said once with how many ("starts a road, 3
    times"), not "starts a road; starts a road; starts a road"; so with two roads that grow alike."""
    g = games.CARCASSONNE
    counted = 0
    for seed in range(40):
        state = _position(seed, 12, 2)
        if g.is_over(state):
            continue
        seat = g.actor(state)
        for head, _ in g.email_moves(state, seat, NAMES[:2]):
            x, y = (int(v) for v in head.split()[1].split(","))
            said = placement_effects(state, x, y, int(head.split()[2][1:]), seat, NAMES[:2])
            assert len(said) == len(set(said)), (head, said)
            counted += any(p.endswith(("twice", "times")) for p in said)
    assert counted, "no position did one thing several times: the check checked nothing"
