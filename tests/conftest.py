"""Shared pytest configuration."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from benchmarks._browser import chromium_path

from .missing import missing

# CI runs the property tests with a fixed, moderate budget so the suite stays fast;
# a developer can raise it with HYPOTHESIS_PROFILE=thorough.
settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def chromium() -> str:
    """Path of the Chromium the browser tests and benchmarks launch.

    Missing, it skips the test on a laptop and fails it under ``CI``: browser
    tests are never skipped there.
    """
    try:
        return chromium_path()
    except FileNotFoundError as err:
        missing(str(err))


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> str:
    """A private ``redis-server`` on a free loopback port (Debian's package), for
    rooms shared by several server processes. Missing: a skip on a laptop, a
    failure under ``CI``."""
    import shutil

    from benchmarks._browser import redis_server

    if shutil.which("redis-server") is None:
        missing("redis-server is not installed (apt-get install redis-server)")
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url
