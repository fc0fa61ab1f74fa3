"""One headless Chromium for the whole test session (starting one costs about a second)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def browser():
    from minidynamo.report.browser import start

    drv = start(1280, 900)
    yield drv
    drv.quit()
