"""Showing a static plotly figure inside a widget, drawn by JupyterLab's plotly renderer.

A plotly ``FigureWidget`` carries the whole plotly.js bundle (about 5 MB) in
its state, once per instance; figures that never change in place are
therefore shown in an ``ipywidgets.Output`` as a plotly mime bundle, which
JupyterLab's ``jupyterlab-plotly`` extension draws (plotly.js loaded once).

Examples
--------
>>> import ipywidgets as w
>>> import plotly.graph_objects as go
>>> out = w.Output()
>>> show_figure(out, go.Figure(go.Bar(x=[1], y=[2]), layout={"title": {"text": "T"}}))
>>> sorted(out.outputs[0]["data"])
['application/vnd.plotly.v1+json', 'text/plain']
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as w
import plotly.graph_objects as go

#: The plotly mime type JupyterLab renders.
PLOTLY_MIME = "application/vnd.plotly.v1+json"


def figure_bundle(fig: go.Figure) -> dict[str, Any]:
    """The mime bundle of ``fig`` (JSON-safe data, layout and config, plus a text fallback)."""
    data = json.loads(fig.to_json())
    data["config"] = {"displaylogo": False}
    title = fig.layout.title.text or "figure"
    return {PLOTLY_MIME: data, "text/plain": f"<plotly figure: {title}>"}


def show_figure(output: w.Output, fig: go.Figure) -> None:
    """Replace what ``output`` (an ``ipywidgets.Output``) shows by ``fig`` (works without a kernel too)."""
    output.outputs = ({"output_type": "display_data", "data": figure_bundle(fig), "metadata": {}},)
