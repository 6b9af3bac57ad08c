"""What a test does when a tool it needs (Chromium, nginx, buildah) is missing."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(message: str) -> NoReturn:
    """Skip the test on a laptop; fail it under ``CI``, where nothing is skipped."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
