"""Game review (docs/ai.md, "Game review"): after a game, each human seat's decisions as the AI sees them.

For every decision of the seat (each of its moves where it had a choice), the review gives the move
played, the move the AI prefers, and the estimated difference in final points between them, with
the position before each in words (the game's ``review_position``); the five costliest decisions
are marked, each with its ``version``: the replay's step where the decision was made (the page
opens the replay there and draws both moves on the board). What a decision is worth is the game's
AI's (``ai.review_decisions``, for a game that declares ``review``, ``games.Reviewed``: Tiletum's
is ``ai/tiletum/review.py``, a search of ``REVIEW_LEVEL``'s settings from the seat's own view;
Carcassonne's and Pillars' the generic search's, ``ai.generic.review``).

**The figures are bounded estimates.** The AI's estimates of separate decisions overlap (a point
lost early is counted again by every later decision that could not win it back), so they are
never summed as they are: each decision's ``loss`` and the ``total_loss`` are at most the game's
``bound`` (``games.Reviewed.review_bound``: by default the best final score of the game, the most
any seat got out of it), and the words say "an estimated", "at most". A stored review is bounded
again on every read, so a review stored before the bound reads bounded too.

Computing it takes seconds of CPU, so it is a background task (``workers.review_game``, on the
``reviews`` queue and its own worker, never the emails'; the core
never enqueues it itself: :meth:`Reviews.get` sends it through the ``send_task`` it is given,
once per seat while it is pending) and idempotent: the result is stored in Redis
(``g:{<id>}:review:<seat>``) and computed once. Until it is there, :meth:`Reviews.get` answers
None (the API says 202 with Retry-After).

Who may read it: the game must be over (409 ``game-not-over``); the seat's own token always; anyone
else only when the game is public -- not rated (a friendly game, a game with an AI seat or created
with ``rated: false``; application/rated.py): in a rated game (a tournament's among them) a
seat's review is its own (403 ``review-private``). Only a game that declares ``review``
(``games.Rules.review``) has one: the generic search of the others (``ai.generic``) ranks moves
without a value in points, so they answer 409 ``review-unsupported``.
"""
from __future__ import annotations

import json
from collections.abc import Callable

import ai
import games
from ai.settings import Settings

from . import errors
from .queues import REVIEWS
from .rated import is_rated
from .store import key

REVIEW_LEVEL = "medium"        # fixed, so that reviews compare across games
PENDING_SECONDS = 600          # a review asked for is sent again after this long if still not stored
RETRY_AFTER = 5                # seconds a client waits before asking again
COSTLIEST = 5


def review_key(game_id: str, seat: int) -> str:
    return key(game_id, f"review:{seat}")


def pending_key(game_id: str, seat: int) -> str:
    return key(game_id, f"review:{seat}:pending")


class Reviews:
    def __init__(self, service, send_task: Callable | None = None,
                 level: str | int | Settings = REVIEW_LEVEL):
        self.service = service
        self.r = service.store.r
        self.send_task = send_task
        self.level = level

    def _check(self, game_id: str, seat: int, token: str | None):
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        if not 0 <= seat < len(meta["seats"]):
            raise errors.invalid("bad-seat", errors.said("seat is 0-{last} in this game",
                                                     last=len(meta["seats"]) - 1))
        if meta["seats"][seat]["kind"] != "human":
            raise errors.invalid("not-a-human-seat",
                                 errors.said(
                "seat {seat} is not played by a person: there is nothing to review", seat=seat))
        mine = self.service.seat_of(meta, token, game_id) == seat if token is not None else False
        if games.reviewed(game) is None:
            raise errors.refused("review-unsupported",
                                 errors.said(
                "there is no review of {game} games: its AI ranks moves without an estimate in points",
                game=game.title))
        if not game.is_over(state):
            raise errors.refused("game-not-over", "a review is made once the game is over")
        if not mine and is_rated(meta):
            if token is None:
                raise errors.unauthorized("a rated game's review is its seat's own: send that seat's token")
            raise errors.forbidden("review-private", "a rated game's review is for its own seat only")
        return meta, state

    def get(self, game_id: str, seat: int, token: str | None, lang: str | None = None) -> dict | None:
        """The stored review, or None while it is being computed (the task is sent, once). ``lang``:
        its words (the moves, the positions) in that language where the game speaks it: the
        stored review's are English, so they are said again from the game's events."""
        meta, state = self._check(game_id, seat, token)
        raw = self.r.get(review_key(game_id, seat))
        if raw is not None:
            game = games.of_meta(meta)
            doc = bounded(json.loads(raw), game, state, seat)
            said = games.in_language(game, lang)
            return self._said(game_id, game, doc, seat, said) if said else doc
        if (self.r.set(pending_key(game_id, seat), 1, nx=True, ex=PENDING_SECONDS)
            and self.send_task is not None):
            self.send_task("workers.review_game", [game_id, seat], REVIEWS)
        return None

    def _said(self, game_id: str, game: games.Game, doc: dict, seat: int, said: dict) -> dict:
        """``doc`` with each decision's words made again in the language ``said`` gives: the moves
        played and preferred (the game's ``legal_moves`` in the position before the decision, at the
        decision's ``version``) and the position (``review_position``); the figures as stored."""
        at = {d["version"]: d for d in doc["decisions"]}
        reviewed = games.reviewed(game)
        if not at or reviewed is None:
            return doc
        events = self.service.store.events(game_id)
        state = game.replay(events[:1])
        for version, ev in enumerate(events[1:], start=1):
            d = at.get(version)
            if d is not None:
                words = dict(game.legal_moves(state, **said))
                d["played_words"] = words.get(d["played"], d["played_words"])
                d["preferred_words"] = words.get(d["preferred"], d["preferred_words"])
                d["position"] = reviewed.review_position(state, seat, **said)
            if version >= max(at):
                break
            state = game.replay([ev], state)
        return doc

    def compute(self, game_id: str, seat: int) -> dict:
        """Compute and store the review (idempotent: a stored one is returned as it is)."""
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        raw = self.r.get(review_key(game_id, seat))
        if raw is not None:
            return bounded(json.loads(raw), game, state, seat)
        if games.reviewed(game) is None or not game.is_over(state) or meta["seats"][seat]["kind"] != "human":
            raise errors.refused("review-unsupported", "no review for this game and seat")
        events = self.service.store.events(game_id)
        decisions = ai.review_decisions(game, events, seat, self.level, f"review:{game_id}")
        # stored with the estimates as the AI made them, and bounded as it is read, the first time
        # as every time after (stored bounded, a loss over the bound was cut before raw_total summed
        # it on the next read: the figure changed between the first answer and the second)
        level = self.level if isinstance(self.level, str) else "custom"
        doc = {"game": game_id, "seat": seat, "level": level, "score": game.scores(state)[seat],
               "decisions": decisions}
        # the first review stored is the review: two computations at once (a task sent again, the
        # page's request beside a worker's) may differ where the AI's search is bounded by time, and
        # a player must not see the figures change once shown
        stored = self.r.set(review_key(game_id, seat), json.dumps(doc), nx=True)
        self.r.delete(pending_key(game_id, seat))
        if not stored:
            raw = self.r.get(review_key(game_id, seat))
            if raw is not None:
                doc = json.loads(raw)
        return bounded(doc, game, state, seat)


def bounded(doc: dict, game: games.Game, state, seat: int) -> dict:
    """The review ``doc`` with its figures bounded by what the game could give (the module's
    docstring): each decision's loss and the total at most the game's ``review_bound``; the
    costliest five ranked on the bounded losses. ``doc["raw_total"]`` keeps the plain sum of the
    estimates, for those who study the AI."""
    reviewed = games.reviewed(game)
    bound = round(reviewed.review_bound(state, seat), 1) if reviewed is not None else 0.0
    decisions = [{**d, "loss": round(min(max(0.0, float(d["loss"])), bound), 1)} for d in doc["decisions"]]
    raw = round(sum(max(0.0, float(d["loss"])) for d in doc["decisions"]), 1)
    costliest = sorted(range(len(decisions)), key=lambda i: (-decisions[i]["loss"], i))[:COSTLIEST]
    return {**doc, "decisions": decisions, "bound": bound, "score_unit": game.score_unit,
            "raw_total": raw, "total_loss": min(raw, bound),
            "costliest": [i for i in costliest if decisions[i]["loss"] > 0]}


__all__ = ["REVIEW_LEVEL", "Reviews"]
