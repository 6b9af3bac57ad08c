"""Shared pytest configuration."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# CI runs the property tests with a fixed, moderate budget so the suite stays fast;
# a developer can raise it with HYPOTHESIS_PROFILE=thorough.
settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
