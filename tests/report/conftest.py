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


@pytest.fixture(scope="module", autouse=True)
def breaks_stay_breaks():
    """The report tests draw graph breaks: the pure-arm branches of their programs keep their break instead of
    folding into cond nodes (auto_cond off; folded branches have their own tests in tests/capture)."""
    from minidynamo import config

    with config.patch(auto_cond=False):
        yield
