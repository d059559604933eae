"""Tiletum PBEM REST API (Flask + flask-smorest). ``create_app()`` is the WSGI app factory:

    gunicorn 'api:create_app()'
"""
from .app import create_app

__all__ = ["create_app"]
