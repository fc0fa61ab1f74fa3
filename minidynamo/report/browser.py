"""Headless Chromium for the report page: screenshots for the README and the browser tests.

Drives the system's Chromium (Debian's `chromium` + `chromium-driver`) through selenium, an optional
dependency (the `report` extra); nothing here is imported by the rest of the package. The driver is given
explicitly, so selenium never downloads one; the flags keep Chromium from touching the network.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
         "--hide-scrollbars")


class BrowserUnavailable(RuntimeError):
    """No Chromium, no chromedriver or no selenium: the message says which."""


def find_tools() -> tuple[str, str]:
    """(chromium, chromedriver) executables, or BrowserUnavailable naming what is missing."""
    try:
        import selenium  # noqa: F401  (only checking that it is installed)
    except ImportError as e:
        raise BrowserUnavailable("selenium is not installed (pip install 'minidynamo[report]')") from e
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = next((p for p in map(shutil.which, DRIVERS) if p), None)
    if browser is None:
        raise BrowserUnavailable(f"no Chromium executable on PATH (looked for {', '.join(BROWSERS)})")
    if driver is None:
        raise BrowserUnavailable("no chromedriver on PATH (Debian: apt-get install chromium-driver)")
    return browser, driver


def start(width: int = 1280, height: int = 900) -> Any:
    """A headless Chromium WebDriver with a fresh profile (the caller quits it)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = find_tools()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='minidynamo-chromium-')}")
    options.add_argument(f"--window-size={width},{height}")
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


def rendered_ms(drv: Any, timeout: float = 30.0) -> float:
    """performance.now() at the page's first painted frame after load, as the page itself records it."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(drv, timeout).until(lambda d: d.execute_script("return document.body.dataset.rendered"))
    return float(drv.execute_script("return document.body.dataset.rendered"))


def screenshot(html: Path, png: Path, width: int = 1280, height: int = 1400, click_first_break: bool = True
               ) -> Path:
    """Open the page, show the first break's details (if any), and save the viewport as a PNG."""
    drv = start(width, height)
    try:
        drv.get(Path(html).resolve().as_uri())
        rendered_ms(drv)
        if click_first_break:
            drv.execute_script("var b = document.querySelector('section .source .brk:not(.off)');"
                               "if (b) { b.closest('details.fn').open = true;"
                               " b.closest('section').scrollIntoView({block: 'start'}); b.click(); }")
        drv.save_screenshot(str(png))
    finally:
        drv.quit()
    return Path(png)
