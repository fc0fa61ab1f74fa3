"""One headless Chromium for the whole test session (starting one costs about a second)."""

from __future__ import annotations

import pytest


# Package scope: the browser is closed once tests/report is done, so its driver's allocations are not
# counted by the memory tests that run later in the session.
@pytest.fixture(scope="package")
def browser():
    from minidynamo.report.browser import start

    drv = start(1280, 900)
    yield drv
    drv.quit()
