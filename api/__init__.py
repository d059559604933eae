"""The HTTP adapter of Tiletum PBEM (Flask + flask-smorest): the app factory, one Blueprint per
resource (``resources/``), the schemas, problem+json errors and the web pages. Routes parse the
request, call the application core (``application/``) and return; ``create_app()`` is the WSGI
app factory::

    gunicorn 'api:create_app()'
"""
from .app import create_app

__all__ = ["create_app"]
