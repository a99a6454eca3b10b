"""The workbench's colours follow JupyterLab's theme: one stylesheet, carried by an invisible widget.

Every widget of :mod:`agrag_lab.widgets` puts a :class:`ThemeStyle` among its
children. Rendering it puts ``theme.css`` into the page once: colours read
from JupyterLab's ``--jp-*`` CSS variables (light, dark or any other theme),
and plotly charts (transparent paper, see :func:`agrag_lab.charts.palette.style`)
take their text and grid colours from the theme too.

Examples
--------
>>> from agrag_lab.widgets.theme import ThemeStyle, themed
>>> "--jp-content-font-color1" in str(ThemeStyle._css)
True
>>> import ipywidgets as w
>>> box = themed(w.VBox(), "agrag-demo")
>>> sorted(box._dom_classes)
['agrag-demo', 'agrag-widget']
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import anywidget
import ipywidgets as w

_HERE = Path(__file__).resolve().parent

W = TypeVar("W", bound=w.Box)


class ThemeStyle(anywidget.AnyWidget):
    """Draws nothing; brings ``theme.css`` into the page."""

    _esm = "export default { render({ el }) { el.style.display = 'none'; } };"
    _css = _HERE / "theme.css"


def use_jupyterlab_theme() -> None:
    """Let JupyterLab draw plotly figures (``plotly_mimetype``), in its theme's colours, in a notebook without widgets.

    The workbench's widgets bring ``theme.css`` themselves; a notebook that
    only shows charts calls this once (it shows an invisible :class:`ThemeStyle`),
    so the charts' text and grid follow a switch to the dark theme too.
    """
    import plotly.io as pio
    from IPython.display import display

    pio.renderers.default = "plotly_mimetype"
    display(ThemeStyle())  # type: ignore[no-untyped-call]


def themed(box: W, css_class: str) -> W:
    """Mark ``box`` as a workbench widget (``agrag-widget`` and ``css_class``) and add a :class:`ThemeStyle`."""
    box.add_class("agrag-widget")
    box.add_class(css_class)
    box.children = (*box.children, ThemeStyle())
    return box
