"""The report pages in a real browser (headless Chromium through selenium): every graph is drawn with as
many nodes as its IR has, a break marker shows its reason when clicked, screenshots are saved, and a
1,000-node graph is painted in under 2 s (measured by the page with performance.now()) from a page under
2 MB. One browser serves the whole session (`browser` in conftest.py); skipped, with the reason, without chromium, chromedriver or
selenium."""

from __future__ import annotations

from pathlib import Path

import pytest

from minidynamo.report.browser import BrowserUnavailable, find_tools, rendered_ms

from .pages import Page, big_page, corpus_pages, script_page, tour_pages

try:
    find_tools()
    MISSING = ""
except BrowserUnavailable as e:
    MISSING = str(e)

pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"browser tests need headless Chromium: {MISSING}")


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> list[Page]:
    directory = tmp_path_factory.mktemp("report_pages")
    script, done = script_page(directory)
    assert done.returncode == 0, done.stderr
    return [*tour_pages(directory), *corpus_pages(directory), script]


def _open(drv, path: Path) -> float:
    drv.get(path.resolve().as_uri())
    return rendered_ms(drv)


DRAWN = """return Array.from(document.querySelectorAll('main svg.dag')).map(function (s) {
  return [s.querySelectorAll(':scope > g.node').length, s.querySelectorAll(':scope > g.node.op').length,
          s.querySelectorAll(':scope > g.ret').length]; });"""


def test_every_graph_is_drawn_with_its_node_count(browser, pages, tmp_path):
    for page in pages:
        _open(browser, page.path)
        drawn = browser.execute_script(DRAWN)
        assert [(n, ops) for n, ops, _ in drawn] == page.graphs, page.name
        assert all(ret == 1 for _, _, ret in drawn), page.name
        rows = browser.execute_script("return document.querySelectorAll('table.index tbody tr').length")
        assert rows == (page.functions if page.run else 0), page.name
        browser.save_screenshot(str(tmp_path / f"{page.name}.png"))
        assert (tmp_path / f"{page.name}.png").stat().st_size > 10_000


def test_clicking_a_break_marker_shows_its_reason(browser, pages):
    checked = 0
    for page in (p for p in pages if p.breaks):
        _open(browser, page.path)
        markers = browser.find_elements("css selector", "ul.breaks .brk")
        assert len(markers) == len(page.breaks), page.name
        for marker, message in zip(markers, page.breaks):
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", marker)
            marker.click()
            panel = browser.find_element("id", "brk-detail")
            assert panel.is_displayed()
            assert message in panel.find_element("css selector", ".reason").text, page.name
            assert panel.find_element("css selector", ".cat").text == marker.get_attribute("data-category")
            checked += 1
        browser.find_element("css selector", "h2").click()       # a click elsewhere closes the panel
        assert not browser.find_element("id", "brk-detail").is_displayed()
    assert checked >= 5


def test_markers_on_source_lines_open_the_panel_on_click_and_hover(browser, pages):
    from selenium.webdriver import ActionChains

    page = next(p for p in pages if p.name == "sign_switch")
    _open(browser, page.path)
    marker = browser.find_element("css selector", ".source .brk:not(.off)")
    line = marker.find_element("xpath", "..").find_element("css selector", ".no").text
    marker.click()
    assert f"tour_programs.py:{line} in sign_switch" in browser.find_element("css selector", "#brk-detail .where").text
    browser.find_element("css selector", "h2").click()
    assert not browser.find_element("id", "brk-detail").is_displayed()
    ActionChains(browser).move_to_element(marker).perform()
    assert browser.find_element("id", "brk-detail").is_displayed()


def test_a_thousand_node_graph_renders_in_under_two_seconds(browser, tmp_path):
    page = big_page(tmp_path, 1000)
    assert page.path.stat().st_size < 2_000_000
    # The page's own clock: performance.now() (from navigation start) at its first painted frame after
    # load. The best of three loads, so a burst of load on a shared machine does not decide the result.
    times = [_open(browser, page.path) for _ in range(3)]
    assert browser.execute_script(DRAWN) == [[1000, 999, 1]]
    assert min(times) < 2000, f"first paint after {min(times):.0f} ms (loads: {times})"
    browser.save_screenshot(str(tmp_path / "big.png"))
