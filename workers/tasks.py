"""Celery tasks of the service. Each takes ids, re-reads the game, checks the work is still due,
and is idempotent; the sweeps (beat) redo what was due and not done. Each task of the beat
schedule records the scheduler's heartbeat when a worker starts it (application/heartbeat.py):
``GET /health`` says the scheduler is down when no sweep has run for 3 of its intervals."""
from __future__ import annotations

import datetime
import logging
import os
import smtplib
import time
from functools import lru_cache

from celery.signals import task_prerun, worker_process_init
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

import games
from ai import may_start_processes
from application import archive, heartbeat
from application.clock import make_clock
from application.dashboard import Dashboard
from application.deadlines import Deadlines
from application.finished import done, follow_up_pending, on_game_over, purge_finished
from application.hints import Hints
from application.lobby import Lobby
from application.queues import EMAIL
from application.review import Reviews
from application.scheduling import Dispatcher
from application.tournament_service import TournamentService
from application.webhooks import Webhooks
from mail.messages import TalkMailer
from mail.tournament_mail import entry_ask, welcome

from .app import AI_SOFT_TIME_LIMIT, AI_TIME_LIMIT, SWEEP_BUDGET, SWEEP_MAX_ATTEMPTS, VISIBILITY_TIMEOUT, app
from .runtime import notifier, outbox, redis_client, send_task, service


log = logging.getLogger("tablepost.tasks")

# task name -> its interval in the beat schedule (workers/app.py)
SCHEDULED = {entry["task"]: float(entry["schedule"]) for entry in app.conf.beat_schedule.values()}
_pruned = False  # this process has dropped the heartbeats of sweeps no longer scheduled


@task_prerun.connect
def _heartbeat(sender=None, **_) -> None:
    """A sweep starts: the scheduler is alive (recorded before the work, so a sweep that fails
    still shows that beat sends and a worker runs)."""
    global _pruned
    every = SCHEDULED.get(getattr(sender, "name", None))
    if every is None:
        return
    try:
        if not _pruned:
            heartbeat.prune(redis_client(), SCHEDULED)
            _pruned = True
        heartbeat.record(redis_client(), sender.name, every)
    except Exception:  # Redis away: the sweep itself will say so
        log.warning("could not record the scheduler's heartbeat", exc_info=True)

# the master AI's pool of processes may start in Celery's pool processes (ai.may_start_processes)
worker_process_init.connect(may_start_processes, weak=False)


@app.task(name="workers.notify_turn", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=240, retry_jitter=True, max_retries=8)
def notify_turn(self, game_id: str, version: int) -> int:
    """Email whoever must act in ``game_id`` at ``version`` (once), or the results at the end."""
    return notifier().notify(game_id, version)


@app.task(name="workers.review_game")
def review_game(game_id: str, seat: int) -> int:
    """Compute a finished game's review of ``seat`` (docs/ai.md, "Game review"); idempotent: a
    stored review is not computed again. Returns the number of decisions reviewed."""
    return len(Reviews(service()).compute(game_id, seat)["decisions"])


# the hint searches at the lowest CPU priority (bench/hints.py, one quiet run each: a plain GET's
# p99 under 40 hints was 3.6x idle at +19, 6.3x at +10)
HINT_NICE = 19
_niced = False


@app.task(name="workers.hint")
def hint(game_id: str, version: int, seat: int, level: str) -> int:
    """Compute a hint (application/hints.py) on the ``hints`` worker, at a lower CPU priority than
    the API's requests (``nice`` +19, once per pool process), so that a backlog of hints yields the
    cores to them; idempotent. Returns the number of moves suggested (0: the position has moved on)."""
    global _niced
    if not _niced:
        try:
            os.nice(HINT_NICE)
        except OSError:   # not allowed here: the search runs at the same priority
            pass
        _niced = True
    return len(Hints(service()).compute(game_id, version, seat, level) or [])


@app.task(name="workers.sweep_notifications")
def sweep_notifications(older_than: float | None = None) -> int:
    """The turn emails that have been due for a while and were never sent (a broker that was
    down when the move landed, a lost message, or one still waiting behind a burst): each is handed
    to the email queue again (``workers.notify_turn``, idempotent), so this sweep stays short and a
    burst of emails never holds the sweeps worker; and the deferred turn emails of live seats whose
    grace is over (``mail:later``; application/live.py), few, sent here."""
    wait = float(older_than if older_than is not None else os.environ.get("TABLEPOST_MAIL_DUE_SECONDS", "60"))
    n = notifier()
    return (n.sweep_due(wait, max_attempts=SWEEP_MAX_ATTEMPTS, budget=SWEEP_BUDGET / 2,
                        hand_off=lambda game_id, version: send_task("workers.notify_turn",
                                                                    [game_id, version], EMAIL))
            + n.sweep_later(max_attempts=SWEEP_MAX_ATTEMPTS, budget=SWEEP_BUDGET / 2))


@app.task(name="workers.sweep_talk")
def sweep_talk() -> int:
    """The table talk's own emails (mail/messages.py): messages no email of a seat told within
    TABLEPOST_TALK_EMAIL_SECONDS go to it in one email."""
    return TalkMailer(notifier(), float(os.environ.get("TABLEPOST_TALK_EMAIL_SECONDS", "10800"))).sweep()


@app.task(name="workers.sweep_outbox")
def sweep_outbox() -> int:
    """Deliver the queued emails that are due: those whose last attempt failed (with backoff),
    and those a worker claimed and never finished (it died inside SMTP: its lease is over)."""
    return outbox().deliver_due()


@app.task(name="workers.sweep_bot_turns")
def sweep_bot_turns(older_than: float | None = None) -> int:
    """Re-send the turns of the games' own automata and of AI seats that have been due for a while.
    Sending twice is harmless: the seats' tasks are idempotent."""
    wait = float(older_than if older_than is not None else os.environ.get("TABLEPOST_BOT_DUE_SECONDS", "30"))
    return Dispatcher(redis_client(), send_task).sweep(older_than=wait)


def stand_in_lease() -> float:
    """How long a turn handed to the AI worker may wait before a sweep hands it off again: its hard
    limit, the broker's visibility timeout (a worker that died: the broker delivers it again
    first) and a minute."""
    return max(AI_TIME_LIMIT, VISIBILITY_TIMEOUT) + 60


@app.task(name="workers.sweep_deadlines")
def sweep_deadlines() -> dict:
    """Reminders that are due, and the timeout policy for deadlines that passed: each late turn is
    counted here and handed to the AI worker (``workers.stand_in_turn``, queue ``stand-in``), so the
    sweep never waits for the AI."""
    n = notifier()
    return Deadlines(n.service, n, make_clock(redis_client()), max_attempts=SWEEP_MAX_ATTEMPTS,
                     budget=SWEEP_BUDGET, lease=stand_in_lease()).sweep()


@app.task(name="workers.stand_in_turn", bind=True, autoretry_for=(RedisConnectionError, RedisTimeoutError,
                                                                  OSError),
          retry_backoff=2, retry_backoff_max=120, retry_jitter=True, max_retries=8)
def stand_in_turn(self, game_id: str, seat: int, version: int) -> int:
    """The AI worker (queue ``stand-in``): the stand-in plays the seat's turn that started at
    ``version``, if it is still due (application/deadlines.py, ``Deadlines.play_late_turn``).
    Idempotent: a second delivery finds the turn played, or its moves get a 409 and are not
    played. The turn's deadline entry stays until it was played: should this task fail for good,
    a sweep hands the turn off again when its lease is over. The stand-in thinks at most half of
    the task's soft limit; the turn's later decisions are quick."""
    svc = service()
    return Deadlines(svc, None, make_clock(redis_client())).play_late_turn(game_id, int(seat), int(version),
                                                                          think=AI_SOFT_TIME_LIMIT / 2)


@app.task(name="workers.purge_finished")
def purge_finished_games() -> int:
    """Maintenance: games over or gone leave every index of due work (entries left by games that
    finished before finished games were cleaned up, whatever their due time)."""
    return purge_finished(service())


def archive_after_days() -> float:
    return float(os.environ.get("TABLEPOST_ARCHIVE_AFTER_DAYS", str(archive.ARCHIVE_AFTER_DAYS)))


@app.task(name="workers.sweep_archive")
def sweep_archive() -> dict:
    """Archive the finished games whose follow-up was done more than TABLEPOST_ARCHIVE_AFTER_DAYS
    (default 7) ago, at most TABLEPOST_ARCHIVE_BATCH (default 1000) per run (application/archive.py)."""
    return archive.sweep(service(), archive_after_days(),
                         limit=int(os.environ.get("TABLEPOST_ARCHIVE_BATCH", "1000")))


@app.task(name="workers.archive_game")
def archive_game(game_id: str) -> str:
    """Archive one finished game if that is still to do (idempotent; re-reads the game)."""
    return archive.archive_game(service(), game_id, time.time() - archive_after_days() * 86400)


@app.task(name="workers.send_digests")
def send_digests() -> int:
    """The daily digest for players who chose it (beat, once a day)."""
    return notifier().send_digests(datetime.date.today().isoformat())


@app.task(name="workers.game_over", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=240, retry_jitter=True, max_retries=8)
def game_over(self, game_id: str, version: int) -> dict:
    """A game ended: rate it, move its tournament on, email the results (each once)."""
    return _game_over(game_id, version)


def _game_over(game_id: str, version: int) -> dict:
    n = notifier()
    out = on_game_over(n.service, game_id)
    # the results email, for a game the email channel plays (games.Game.email)
    out["emails"] = n.notify(game_id, version) if games.of_meta(n.service.meta(game_id)).email else 0
    done(redis_client(), game_id)
    return out


@app.task(name="workers.sweep_tournaments")
def sweep_tournaments(older_than: float | None = None) -> dict:
    """Finish the follow-up of games that ended a while ago and whose message was lost, then
    advance every running tournament (start dates, round deadlines)."""
    wait = float(older_than if older_than is not None else os.environ.get("TABLEPOST_MAIL_DUE_SECONDS", "60"))
    games = follow_up_pending(redis_client(), wait,
                              lambda game_id: _game_over(game_id, service().store.version(game_id)),
                              max_attempts=SWEEP_MAX_ATTEMPTS, budget=SWEEP_BUDGET)
    ts = TournamentService(service())
    emails = 0
    for tid in ts.store.running():
        try:
            emails += welcome(notifier(), tid)  # once each: a lost welcome task is made good here
        except Exception:
            log.warning("the welcome emails of tournament %s failed; tried again later", tid, exc_info=True)
    return {"games": games, "tournament_events": ts.sweep(), "welcome_emails": emails}


@app.task(name="workers.tournament_welcome", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=240, retry_jitter=True, max_retries=8)
def tournament_welcome(self, tid: str) -> int:
    """Tell the players the organizer entered that they are in, with their private link (once)."""
    return welcome(notifier(), tid)


@app.task(name="workers.tournament_entry_ask", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=240, retry_jitter=True, max_retries=8)
def tournament_entry_ask(self, tid: str, nonce: str) -> int:
    """Someone asked to enter an address with the invitation link: tell its owner (once)."""
    return entry_ask(notifier(), tid, nonce)


@app.task(name="workers.send_seat_link", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=600, retry_jitter=True, max_retries=8)
def send_seat_link(self, game_id: str, seat: int, generation: int) -> int:
    """A seat's links were revoked: email its new private link (once)."""
    return notifier().send_seat_link(game_id, seat, generation)


@app.task(name="workers.send_dashboard_link", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=600, retry_jitter=True, max_retries=8)
def send_dashboard_link(self, pid: str, generation: int) -> int:
    """A dashboard key was revoked: email the new dashboard link (once)."""
    return notifier().send_dashboard_link(pid, generation)


@app.task(name="workers.send_lobby_join", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=240, retry_jitter=True, max_retries=8)
def send_lobby_join(self, game_id: str, nonce: str) -> int:
    """A player asked to join a waiting game: email the one-time link that takes the seat (once)."""
    return notifier().send_lobby_join(game_id, nonce)


@app.task(name="workers.lobby_cancelled", bind=True, autoretry_for=(smtplib.SMTPException, OSError),
          retry_backoff=2, retry_backoff_max=240, retry_jitter=True, max_retries=8)
def lobby_cancelled(self, game_id: str) -> int:
    """The creator cancelled a waiting game: tell those seated (each once; application/lobby.py)."""
    n = notifier()
    return Lobby(n.service, Dashboard(n.service)).tell_cancelled(game_id, n.lobby_cancelled)


@app.task(name="workers.sweep_lobby")
def sweep_lobby() -> int:
    """Cancel the games whose waiting time for players is over, and tell those already seated
    (each once; application/lobby.py)."""
    n = notifier()
    return Lobby(n.service, Dashboard(n.service)).sweep(n.lobby_cancelled, budget=SWEEP_BUDGET)


# --- webhooks (application/webhooks.py) ------------------------------------------------------

@lru_cache(maxsize=1)
def webhooks() -> Webhooks:
    return Webhooks(service(), max_failures=int(os.environ.get("TABLEPOST_WEBHOOK_MAX_FAILURES", "8")),
                    allow_loopback=os.environ.get("TABLEPOST_WEBHOOK_ALLOW_LOOPBACK", "").strip().lower()
                    in ("1", "true", "yes", "on"))


@app.task(name="workers.deliver_webhooks")
def deliver_webhooks(game_id: str, version: int) -> int:
    """A game was saved at ``version``: one delivery task per subscription that may want it."""
    sids = webhooks().subscriptions_of(game_id)
    for sid in sids:
        deliver_webhook.apply_async([sid, game_id, version], queue=EMAIL)
    return len(sids)


@app.task(name="workers.deliver_webhook", bind=True, max_retries=None)
def deliver_webhook(self, sid: str, game_id: str, version: int) -> str:
    """POST what subscription ``sid`` wants of ``game_id`` at ``version`` (once); on failure again
    after TABLEPOST_WEBHOOK_BACKOFF s, doubling (at most 240 s, under the broker's visibility
    timeout), until it worked or the subscription is switched off and its owner told."""
    result = webhooks().deliver(sid, game_id, version, attempt=self.request.retries)
    if result == "more":  # one page was accepted: the next one now
        deliver_webhook.apply_async([sid, game_id, version], queue=EMAIL)
    if result == "retry":
        base = float(os.environ.get("TABLEPOST_WEBHOOK_BACKOFF", "10"))
        raise self.retry(countdown=min(base * 2 ** self.request.retries, 240))
    if result == "off":
        webhook_off_email(sid)
    return result


def webhook_off_email(sid: str) -> int:
    """Tell the owner of a webhook that it was switched off (once): only a verified address
    (``Webhooks.owner_email``), and of the URL a stranger may have typed only its host."""
    hooks = webhooks()
    email = hooks.owner_email(sid)
    if not email:
        return 0
    n = notifier()
    host = hooks.show_host(sid)
    msg = n.notice("Your webhook was switched off", email)
    msg.set_content(
        f"Hello,\n\nthe webhook {sid} (to {host}) failed {hooks.max_failures} times in a row, so the service "
        "stopped sending to it. Its delivery log: GET /api/v1/webhooks/" + sid + " (with the same token).\n"
        "Once the receiver works again, register a new webhook (POST /api/v1/webhooks) and delete this "
        "one.\n")
    return n.send_once(f"webhook-off:{sid}", email, msg)
