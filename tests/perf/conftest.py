"""The perf tests drive a real Chromium; under ``CI`` a missing one fails them, never skips."""

from __future__ import annotations

import os

import pytest

from benchmarks._browser import chromium_path


@pytest.fixture
def chromium() -> str:
    """Path of the Chromium the benchmarks launch."""
    try:
        return chromium_path()
    except FileNotFoundError as err:
        if os.environ.get("CI"):
            pytest.fail(str(err))
        pytest.skip(str(err))
