"""The schemas of a finished game's review (GET /api/v1/games/{id}/review; docs/ai.md, "Game review")
and of a player's reliability (public profiles and the lobby; docs/pbem.md, "Your public profile")."""
from __future__ import annotations

import marshmallow as ma


class ReviewQuery(ma.Schema):
    seat = ma.fields.Integer(required=True, validate=ma.validate.Range(0, 4),
                             metadata={"description": "the seat whose decisions are reviewed"})


class ReviewDecision(ma.Schema):
    version = ma.fields.Integer(required=True,
                                metadata={"description": "the version of the position before it: the "
                                                         "replay's step (GET /state?version=N) where "
                                                         "both moves are legal"})
    round = ma.fields.Integer(required=True)
    played = ma.fields.String(required=True, metadata={"description": "the move played, in notation"})
    played_words = ma.fields.String(required=True, metadata={"description": "the move played, in words"})
    preferred = ma.fields.String(required=True, metadata={"description": "the move the AI prefers"})
    preferred_words = ma.fields.String(required=True)
    loss = ma.fields.Float(required=True,
                           metadata={"description": "the estimated final points the move played gave "
                                                    "away against the AI's (0: the same move), at "
                                                    "most `bound`"})
    position = ma.fields.String(required=True,
                                metadata={"description": "the seat's position before it, in words"})


class ReviewOut(ma.Schema):
    game = ma.fields.String(required=True)
    seat = ma.fields.Integer(required=True)
    level = ma.fields.String(required=True,
                             metadata={"description": "the AI level of the review (docs/ai.md)"})
    score = ma.fields.Integer(required=True, metadata={"description": "the seat's final score"})
    score_unit = ma.fields.String(required=True,
                                  metadata={"description": "what the points count (`VP`, `points`)"})
    decisions = ma.fields.List(ma.fields.Nested(ReviewDecision), required=True,
                               metadata={"description": "every decision of the seat, in order"})
    bound = ma.fields.Float(required=True,
                            metadata={"description": "what the game could give: no loss and no total "
                                                     "exceeds it (the best final score of the game)"})
    total_loss = ma.fields.Float(required=True,
                                 metadata={"description": "the estimated points given away in all: the "
                                                          "sum of the losses, at most `bound` (the "
                                                          "estimates overlap)"})
    raw_total = ma.fields.Float(required=True,
                                metadata={"description": "the plain sum of the losses, unbounded (for "
                                                         "those who study the AI; not a figure to show)"})
    costliest = ma.fields.List(ma.fields.Integer(), required=True,
                               metadata={"description": "indexes into decisions of the (up to) five "
                                                        "costliest"})


class ReviewPending(ma.Schema):
    status = ma.fields.String(required=True, metadata={"description": "`computing`"})
    retry_after = ma.fields.Integer(required=True,
                                    metadata={"description": "seconds to wait before asking again"})


class Reliability(ma.Schema):
    games_finished = ma.fields.Integer(required=True, metadata={
        "description": "games that ended with the player still in them"})
    games_abandoned = ma.fields.Integer(required=True, metadata={
        "description": "games the player left: resigned, or dropped for missed deadlines"})
    stand_in_turns = ma.fields.Integer(required=True, metadata={
        "description": "turns the stand-in (the AI) played for the player's seat"})
    median_move_seconds = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the usual time to move: the median of the recent delays from the start of the "
                       "player's turn to their first move of it, in seconds; null before any"})
    moves_timed = ma.fields.Integer(required=True, metadata={
        "description": "how many recent moves the median is of (200 at most)"})


class LobbyPlayer(ma.Schema):
    name = ma.fields.String(required=True, metadata={"description": "the seat's name"})
    handle = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the player's handle (their profile: /players/{handle}) when the profile is "
                       "public; else null"})
    reliability = ma.fields.Nested(Reliability, required=True, allow_none=True, metadata={
        "description": "how reliably the player plays, when their profile is public; else null"})
