"""A pytest plugin for tests/test_suite_order.py: makes a plain collection believe it runs in one of
N parallel workers (``TABLEPOST_PROBE_WORKERS``) and prints the final order of the tests, as the
workers would report it to pytest-xdist's scheduler."""
from __future__ import annotations

import os


def pytest_configure(config):
    config.workerinput = {"workercount": int(os.environ["TABLEPOST_PROBE_WORKERS"])}


def pytest_collection_finish(session):
    """``ORDER nodeid=seconds ...``: each test with its marker ``long``'s seconds (0 without)."""
    def seconds(item):
        mark = item.get_closest_marker("long")
        return mark.args[0] if mark else 0
    print("\nORDER " + " ".join(f"{item.nodeid}={seconds(item)}" for item in session.items))
