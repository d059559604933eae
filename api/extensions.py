"""The application services of the running app, as the Blueprints reach them. ``create_app``
builds them once (api/app.py) and keeps them in ``app.extensions``; a resource calls these
accessors inside a request."""
from __future__ import annotations

import flask

from application.accounts import Accounts
from application.credentials import Credentials
from application.dashboard import Dashboard
from application.game_service import GameService
from application.profiles import Profiles
from application.lobby import Lobby
from application.push import EventFeed
from application.rating_service import RatingService
from application.scheduling import Dispatcher
from application.tournament_service import TournamentService
from application.webhooks import Webhooks


def service() -> GameService:
    return flask.current_app.extensions["tablepost.service"]


def tournaments() -> TournamentService:
    return flask.current_app.extensions["tablepost.tournaments"]


def ratings() -> RatingService:
    return flask.current_app.extensions["tablepost.ratings"]


def dashboard() -> Dashboard:
    return flask.current_app.extensions["tablepost.dashboard"]


def parts():
    return flask.current_app.extensions["tablepost.parts"]


def scheduler() -> Dispatcher:
    return flask.current_app.extensions["tablepost.scheduler"]


def credentials() -> Credentials:
    return flask.current_app.extensions["tablepost.credentials"]


def feed() -> EventFeed:
    return flask.current_app.extensions["tablepost.feed"]


def webhooks() -> Webhooks:
    return flask.current_app.extensions["tablepost.webhooks"]


def profiles() -> Profiles:
    return flask.current_app.extensions["tablepost.profiles"]


def accounts() -> Accounts:
    return flask.current_app.extensions["tablepost.accounts"]


def lobby() -> Lobby:
    return flask.current_app.extensions["tablepost.lobby"]
