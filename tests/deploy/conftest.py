"""Browser settings for the deploy tests: the same Chromium as tests/ui.

The fixtures are imported, not copied, so the two stay in step (Debian's
Chromium, and under ``CI`` a missing browser fails instead of skipping).
"""

from __future__ import annotations

from tests.ui.conftest import browser_context_args, browser_type_launch_args

__all__ = ["browser_context_args", "browser_type_launch_args"]
