"""The HTTP adapter of Table Post (Flask + flask-smorest): the app factory, one Blueprint per
resource (``resources/``), the schemas, problem+json errors and the web pages. Routes parse the
request, call the application core (``application/``) and return; ``create_app()`` is the WSGI
app factory::

    gunicorn 'api:create_app()'
"""
from __future__ import annotations

from tablepost.env_names import migrate_environ

migrate_environ()   # the settings' old names (TILETUM_*) read as TABLEPOST_*, first: tablepost/env_names.py

__all__ = ["create_app"]


def __getattr__(name: str):
    # ``create_app`` is imported when first asked for, not with the package: gunicorn's master
    # (``tablepost serve``, the image) imports ``api.gunicorn_conf`` and ``api.cli`` only, and each
    # gevent worker then loads the app after gevent has patched the standard library, so that no
    # lock or socket of the app's modules was made before (api/gunicorn_conf.py).
    if name == "create_app":
        from .app import create_app
        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
