"""The browser tests' shared parts: one JupyterLab server, one Chromium, and what a person checks.

* ``lab_server`` (session): JupyterLab on 127.0.0.1 with a token, serving copies
  of the notebooks (so runs never save into git), the app exposed to the page
  (``window.jupyterapp``) so a test can switch the theme without a reload.
* ``browser`` (session): Debian's Chromium through Playwright.
* ``page``: a fresh context at a laptop projector's 1366x768.
* ``lab``: a :class:`Lab` — open and run a notebook, switch between the light and
  dark theme, save screenshots under ``test-artifacts/``, measure text contrast
  (WCAG) against the effective background, and tell whether an element is in
  the viewport.

A typical test::

    def test_my_widget(page, lab):
        lab.run_notebook(page, "04_why_did_it_rank")
        widget = page.locator(".agrag-fusion-inspector").first
        for theme in lab.each_theme(page):           # light, then dark, same page
            assert lab.contrast_failures(widget) == []
            lab.shot(page, f"04_{theme}.png")        # what a person sees at 1366x768
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agrag_lab.lab_server import lab_command, lab_env, lab_url, wait_ready
from agrag_lab.processes import free_port, stop_process

#: --doctest-modules would import this file as a module named "conftest", which clashes with
#: the other conftest.py files of tests/ (not packages); pytest loads it as a plugin anyway.
collect_ignore = ["conftest.py"]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
#: The smallest screen a workshop projects (and a common laptop).
VIEWPORT = {"width": 1366, "height": 768}
#: JupyterLab's two built-in themes, by the short name the tests use.
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
#: WCAG 2 AA for normal text.
MIN_CONTRAST = 4.5
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
#: Running a notebook's cells in the browser: kernel start, index loading, every search.
RUN_TIMEOUT_MS = 600_000


@dataclass(frozen=True)
class LabServer:
    """A running JupyterLab: its port, token and served folder."""

    port: int
    token: str
    root: Path

    def url(self, path: str) -> str:
        return lab_url(self.port, self.token, path)


#: JupyterLab settings for a test: every cell stays in the DOM; no news, no update checks; light theme.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
    "@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": THEMES["light"]},
}


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[LabServer]:
    """JupyterLab on 127.0.0.1 with a token, serving copies of the notebooks (so runs never save into git).

    Its kernels get ``notebook_env`` (tests/conftest.py): the indexes the headless notebook runs use.
    """
    if not CHROMIUM.exists():
        pytest.skip("the browser test needs Debian's Chromium at /usr/bin/chromium "
                    "(apt-get install -y chromium fonts-noto-cjk fonts-noto-core)")
    env: dict[str, str] = request.getfixturevalue("notebook_env")  # after the skip: no index built for nothing
    root = tmp_path_factory.mktemp("lab-root")
    shutil.copytree(REPO / "notebooks", root / "notebooks")
    settings = root / ".settings"
    for name, values in SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    extra = [
        f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={root / '.workspaces'}",
        "--LabApp.expose_app_in_browser=True",
    ]
    log = (ARTIFACTS / "jupyterlab.log").open("w", encoding="utf-8")
    process = subprocess.Popen(
        lab_command(port=port, root_dir=root, extra=extra),
        env=lab_env(token, env),
        cwd=root, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        wait_ready(port, token, timeout=180, process=process)
        yield LabServer(port, token, root)
    finally:
        stop_process(process)
        log.close()


@pytest.fixture(scope="module")
def browser(lab_server: LabServer) -> Iterator[Any]:
    """Debian's Chromium, headless, one per test module.

    Playwright's sync API runs an asyncio loop on the main thread for as long as it is
    open; kept open for the whole session, it makes every later async test (the MCP and
    import tests, run by anyio) fail with "Cannot run the event loop while another loop
    is running". Closing it at the end of each module costs one Chromium launch (~1 s).
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, lab_server: LabServer) -> Iterator[Any]:
    """A fresh browser context per test (no state carried between notebooks), 1366x768.

    Its kernels are shut down after the test: JupyterLab keeps a kernel running when its
    page closes, and each one holds its indexes and models for the rest of the session.
    """
    context = browser.new_context(viewport=dict(VIEWPORT))
    page = context.new_page()
    page.set_default_timeout(120_000)
    yield page
    context.close()
    shut_down_kernels(lab_server)


def shut_down_kernels(server: LabServer) -> int:
    """End every session of ``server`` (JupyterLab's REST API), and so its kernel; return how many."""

    def call(method: str, path: str) -> Any:
        request = urllib.request.Request(server.url(path), method=method)
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
        return json.loads(body) if body else None

    sessions = call("GET", "api/sessions")
    for session in sessions:
        call("DELETE", f"api/sessions/{session['id']}")
    return len(sessions)


@pytest.fixture
def lab(lab_server: LabServer) -> Lab:
    """What a person does and checks in JupyterLab (see :class:`Lab`)."""
    return Lab(lab_server)


# -- in-page measurements ------------------------------------------------------------------

#: Every visible element of ``root`` that draws text of its own, with its colour, its effective
#: background (the alpha-composited backgrounds of its ancestors, down to the page) and their
#: WCAG contrast ratio. SVG text (plotly) uses its fill. Text in plotly's hover layer and in
#: disabled controls (exempt in WCAG) is skipped.
_CONTRAST_JS = r"""
(root, minRatio) => {
  const parse = (c) => {
    const m = c && c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => {            // top composited over an opaque colour
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const lum = (c) => {
    const ch = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      const b = parse(s.backgroundColor);
      if (b && b[3] > 0) { layers.push(b); if (b[3] >= 1) break; }
    }
    let c = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) c = over(layers[i], c);
    return c;
  };
  const out = [];
  const all = [root, ...root.querySelectorAll('*')];
  for (const el of all) {
    // WCAG exempts inactive controls (a disabled button); plotly's hover layer draws its own labels
    if (el.closest('.hoverlayer, script, style, [aria-hidden="true"], :disabled, .mod-disabled')) continue;
    const own = [...el.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim()).map(n => n.textContent.trim()).join(' ');
    if (!own) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none' || parseFloat(s.opacity) === 0) continue;
    const svg = el instanceof SVGElement;
    let fg = parse(svg ? s.fill : s.color);
    if (!fg) continue;
    const bg = background(el);
    let alpha = fg[3];
    for (let e = el; e; e = e.parentElement) alpha *= parseFloat(getComputedStyle(e).opacity);
    fg = over([fg[0], fg[1], fg[2], alpha], bg);
    const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    if (ratio < minRatio) out.push({
      text: own.slice(0, 60), ratio: Math.round(ratio * 100) / 100,
      color: `rgb(${fg.slice(0, 3).map(Math.round).join(',')})`,
      background: `rgb(${bg.slice(0, 3).map(Math.round).join(',')})`,
      element: el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : ''),
    });
  }
  return out;
}
"""

#: The fraction (0..1) of an element's box that can be seen: inside the window and inside every
#: ancestor that clips its overflow (JupyterLab scrolls the notebook inside a panel, not the window).
_VISIBLE_FRACTION_JS = r"""
(el) => {
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return 0;
  let [left, top, right, bottom] = [Math.max(r.left, 0), Math.max(r.top, 0),
    Math.min(r.right, window.innerWidth), Math.min(r.bottom, window.innerHeight)];
  for (let e = el.parentElement; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (getComputedStyle(el).position === 'fixed') break;  // the window alone clips a fixed element
    if (/(auto|scroll|hidden|clip)/.test(s.overflow + s.overflowX + s.overflowY)) {
      const c = e.getBoundingClientRect();
      left = Math.max(left, c.left); top = Math.max(top, c.top);
      right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
    }
  }
  const seen = Math.max(0, right - left) * Math.max(0, bottom - top);
  return seen / (r.width * r.height);
}
"""

#: Plotly legends (and their titles) that reach past their figure's edge, where plotly clips them.
_CLIPPED_LEGENDS_JS = r"""
(root) => {
  const out = [];
  const plots = root.matches('.js-plotly-plot') ? [root] : [...root.querySelectorAll('.js-plotly-plot')];
  for (const plot of plots) {
    const svg = plot.querySelector('.main-svg');
    if (!svg) continue;
    // the figure as drawn, within the box that shows it (a figure wider than its output is cut there too)
    const a = svg.getBoundingClientRect(), b = plot.getBoundingClientRect();
    const s = {left: Math.max(a.left, b.left), right: Math.min(a.right, b.right), top: a.top, bottom: a.bottom};
    if (s.right - s.left < 1) continue;
    for (const part of plot.querySelectorAll('.legend .legendtitletext, .legend .legendtext')) {
      const r = part.getBoundingClientRect();
      if (r.width < 1) continue;
      if (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1)
        out.push({text: part.textContent, left: Math.round(r.left), right: Math.round(r.right),
                  figure: [Math.round(s.left), Math.round(s.right)]});
    }
  }
  return out;
}
"""

ALL_NUMBERED = """() => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
    .map(e => e.textContent.trim());
  return prompts.length > 0 && prompts.every(t => /^\\[\\d+\\]:$/.test(t));
}"""


def contrast_ratio(foreground: tuple[float, float, float], background: tuple[float, float, float]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (0-255 channels), from 1 to 21.

    Examples
    --------
    >>> round(contrast_ratio((0, 0, 0), (255, 255, 255)), 1)
    21.0
    >>> round(contrast_ratio((118, 118, 118), (255, 255, 255)), 2)
    4.54
    """

    def luminance(c: tuple[float, float, float]) -> float:
        lin = [v / 255 / 12.92 if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


class Lab:
    """A person's actions and checks in JupyterLab, for one test.

    Parameters
    ----------
    server : LabServer
        The session's JupyterLab.
    """

    def __init__(self, server: LabServer) -> None:
        self.server = server

    # -- notebooks -------------------------------------------------------------------
    def open_notebook(self, page: Any, name: str) -> None:
        """Open ``notebooks/<name>.ipynb`` in a workspace of its own and wait for an idle kernel."""
        page.goto(self.server.url(f"lab/workspaces/{name}/tree/notebooks/{name}.ipynb"))
        page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
        page.wait_for_function(
            "() => /Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent || '')", timeout=180_000
        )

    def run_all(self, page: Any, *, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
        """Run every cell through JupyterLab's Run menu; fail on any traceback."""
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        try:
            page.wait_for_function(ALL_NUMBERED, timeout=timeout_ms)
        except Exception as exc:  # say which cell failed or is still running
            errors = page.locator(".jp-OutputArea-output", has_text="Traceback (most recent call last)")
            if errors.count():
                raise AssertionError(errors.first.inner_text()[:2000]) from exc
            raise
        errors = page.locator(".jp-OutputArea-output", has_text="Traceback (most recent call last)")
        assert errors.count() == 0, errors.first.inner_text()[:2000]

    def run_notebook(self, page: Any, name: str, *, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
        """:meth:`open_notebook` then :meth:`run_all`."""
        self.open_notebook(page, name)
        self.run_all(page, timeout_ms=timeout_ms)

    # -- themes ----------------------------------------------------------------------
    def set_theme(self, page: Any, theme: str) -> None:
        """Switch JupyterLab to ``theme`` (``"light"``/``"dark"`` or a full theme name), live."""
        name = THEMES.get(theme, theme)
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand('apputils:change-theme')")
        page.evaluate("(name) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: name})", name)
        page.wait_for_function(
            "(name) => document.body.dataset.jpThemeName === name && !document.body.classList.contains('lm-mod-override-cursor')",
            arg=name,
        )
        page.wait_for_timeout(800)  # the theme's CSS applies, plotly and the widgets repaint

    def each_theme(self, page: Any) -> Iterator[str]:
        """Yield ``"light"`` then ``"dark"``, with the page switched to that theme; back to light after."""
        try:
            for theme in THEMES:
                self.set_theme(page, theme)
                yield theme
        finally:
            self.set_theme(page, "light")

    # -- screenshots -----------------------------------------------------------------
    def shot(self, target: Any, name: str, *, whole: bool = False) -> Path:
        """Save a screenshot under ``test-artifacts/`` and return its path.

        ``target`` is a page (the viewport as a person sees it, 1366x768) or a
        locator (that element; ``whole=True`` grows the viewport to fit it all,
        then shrinks it back).
        """
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        if hasattr(target, "locator") and not hasattr(target, "bounding_box"):
            target.screenshot(path=str(path))
            return path
        page = target.page
        size = page.viewport_size
        if whole:
            box = target.bounding_box()
            if box is not None and box["height"] + 300 > size["height"]:
                page.set_viewport_size({"width": size["width"], "height": int(box["height"]) + 400})
                page.wait_for_timeout(1500)  # let JupyterLab and plotly lay out again
        target.scroll_into_view_if_needed()
        target.screenshot(path=str(path))
        if whole:
            page.set_viewport_size(size)
        return path

    # -- moving around ---------------------------------------------------------------
    def to_top(self, locator: Any) -> None:
        """Scroll so the element's top is at the top of the notebook panel (as a person scrolls to a widget)."""
        locator.evaluate("e => e.scrollIntoView({block: 'start'})")
        locator.page.wait_for_timeout(400)

    # -- checks ----------------------------------------------------------------------
    def assert_legible(self, locator: Any, what: str) -> None:
        """Fail, naming the texts, if any visible text in ``locator`` is below 4.5:1 contrast."""
        failures = self.contrast_failures(locator)
        assert failures == [], f"{what}: text below {MIN_CONTRAST}:1 contrast: {failures[:6]}"

    def contrast_failures(self, locator: Any, *, minimum: float = MIN_CONTRAST) -> list[dict[str, Any]]:
        """The text inside ``locator`` whose contrast with its effective background is below ``minimum``.

        Each failure names the text, its colour, the background it sits on, the
        ratio and the element. An empty list means every visible text passes.
        """
        failures: list[dict[str, Any]] = locator.evaluate(_CONTRAST_JS, minimum)
        return failures

    def clipped_legends(self, locator: Any) -> list[dict[str, Any]]:
        """The legend entries and titles of the plotly charts inside ``locator`` that reach past their figure's edge."""
        clipped: list[dict[str, Any]] = locator.evaluate(_CLIPPED_LEGENDS_JS)
        return clipped

    def visible_fraction(self, locator: Any) -> float:
        """How much (0..1) of the element can be seen without scrolling (window and clipping panels)."""
        return float(locator.evaluate(_VISIBLE_FRACTION_JS))

    def in_viewport(self, locator: Any, *, fraction: float = 0.5) -> bool:
        """Whether at least ``fraction`` of the element is visible where it is (no scrolling)."""
        return self.visible_fraction(locator) >= fraction
