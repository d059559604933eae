"""A pytest plugin for tests/test_suite_order.py: makes a plain collection believe it runs in one of
N parallel workers (``TILETUM_PROBE_WORKERS``) and prints the final order of the tests, as the
workers would report it to pytest-xdist's scheduler."""
from __future__ import annotations

import os


def pytest_configure(config):
    config.workerinput = {"workercount": int(os.environ["TILETUM_PROBE_WORKERS"])}


def pytest_collection_finish(session):
    print("\nORDER " + " ".join(item.nodeid for item in session.items))
