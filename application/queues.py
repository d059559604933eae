"""The Celery queues, named for their work (issue 40). The application only names them (no Celery
here); workers/app.py routes the tasks, and each queue has a worker of its own (``tablepost serve``,
deploy/, docker-compose.yml):

* ``email``: the turn emails and every other email a save or a request sets off, and the short
  tasks beside them (webhooks, a finished game's follow-up); the default queue of
  ``workers.app``. A burst of emails waits here.
* ``sweeps``: everything Celery beat schedules (the sweeps, the reminders and deadlines, the
  digests, maintenance), so that no burst of emails delays them.
* ``seats``: the turns of every game's own automa and of every game's AI seats (``seats.worker``).
* ``stand-in``: the stand-in's turns for late players (``workers.stand_in_turn``), which may think
  for minutes.
* ``hints``: the hints players ask for (``workers.hint``, application/hints.py): searches of seconds,
  off the API process, at a lower CPU priority than the requests.
* ``reviews``: the game reviews players ask for after a game (``workers.review_game``,
  application/review.py): seconds of CPU each, which once held a new game's first email back on
  ``email`` (issue 51: four reviews delayed it from 1 to 7 s).

Before issue 40 they were ``tiletum`` (emails and sweeps together), ``cardinalbot`` and ``ai``;
docs/deploy.md says how to drain those in a running broker when upgrading."""
from __future__ import annotations

EMAIL = "email"
SWEEPS = "sweeps"
SEATS = "seats"
STAND_IN = "stand-in"
HINTS = "hints"
REVIEWS = "reviews"
ALL = (EMAIL, SWEEPS, SEATS, STAND_IN, HINTS, REVIEWS)
OLD = {"tiletum": EMAIL, "cardinalbot": SEATS, "ai": STAND_IN}   # the names before issue 40
