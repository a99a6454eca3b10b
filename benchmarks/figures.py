"""Plotly figures as PNG files for BENCHMARKS.md, drawn by the Debian Chromium the browser tests use.

Plotly's own static export needs kaleido (and a Chrome it downloads); the project already has
Chromium and Playwright for its browser tests, so a figure is drawn there from plotly's bundled
plotly.js (no CDN) and screenshotted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def save_png(figure: Any, path: Path, *, width: int = 1100, height: int | None = None) -> Path:
    """Draw ``figure`` (a plotly Figure) in headless Chromium and save it as a PNG at ``path``."""
    from playwright.sync_api import sync_playwright

    height = height or int(figure.layout.height or 520)
    html = figure.to_html(include_plotlyjs=True, full_html=True, config={"staticPlot": True},
                          default_width=f"{width}px", default_height=f"{height}px")
    path.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": width + 20, "height": height + 20})
            page.set_content(html)
            page.wait_for_selector(".main-svg")
            page.locator(".js-plotly-plot").first.screenshot(path=str(path))
        finally:
            browser.close()
    return path
