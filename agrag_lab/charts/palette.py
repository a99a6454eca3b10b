"""One colour-blind-safe palette for every chart: Okabe & Ito (2008).

Colours are fixed per meaning, so a source, a kind or an outcome has the same
colour in every chart of a report or a workshop.

Examples
--------
>>> color("chunk") == color("chunk")
True
>>> color("something new") in OKABE_ITO
True
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import plotly.graph_objects as go

#: Okabe-Ito: black, orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple.
OKABE_ITO: tuple[str, ...] = (
    "#000000",
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
)
BLACK, ORANGE, SKY_BLUE, GREEN, YELLOW, BLUE, VERMILLION, PURPLE = OKABE_ITO

#: Fixed colours by meaning (sources, item kinds, system kinds, outcomes).
ROLES: Mapping[str, str] = MappingProxyType(
    {
        # fusion sources and item kinds
        "entity": BLUE,
        "chunk": ORANGE,
        "community": PURPLE,
        "communities": PURPLE,
        "walk": GREEN,
        "dense": SKY_BLUE,
        "keyword": YELLOW,
        # system kinds
        "recipe": BLUE,
        "baseline": ORANGE,
        # outcomes
        "win": GREEN,
        "tie": "#BBBBBB",
        "loss": VERMILLION,
        "up": GREEN,
        "down": VERMILLION,
        "same": "#777777",
        "only": SKY_BLUE,
    }
)
#: Paper and plot background: the page's (the theme's) shows through.
TRANSPARENT = "rgba(0,0,0,0)"
#: The legend of every chart: under the plot, from the figure's left edge (``xref``/``yref`` "container"),
#: its title above its items. Plotly wraps such a legend inside the figure; anchored at the plot's right
#: edge with its title beside the items, a legend wider than the room left by long axis labels ran past
#: the figure's edge and plotly cut its title off ("sou" for "source").
LEGEND: Mapping[str, Any] = MappingProxyType({
    "orientation": "h", "xref": "container", "yref": "container", "x": 0.01, "xanchor": "left",
    "y": 0.0, "yanchor": "bottom", "bgcolor": TRANSPARENT, "title": {"side": "top"}, "font": {"size": 12},
})
#: The font of every chart: readable on a projector.
FONT = {"family": "Arial, Helvetica, sans-serif", "size": 14}


#: Colours of groups (communities, labels) in the graph views: Okabe-Ito without black, then five more.
#: The one home of the community -> colour rule of every view of an index (explorer, walk view): fixed hex
#: colours, the same in JupyterLab's light and dark themes (the explorer's script reads them from the state).
GROUP_PALETTE: tuple[str, ...] = (*OKABE_ITO[1:], "#882255", "#44AA99", "#999933", "#AA4499", "#6699CC")
#: The colour of a group past the palette's end, or of a node in none.
OTHER_GROUP = "#9E9E9E"


def group_colours(sizes: Mapping[str, int]) -> dict[str, str]:
    """A colour per group id, keyed by the id and fixed by the whole graph: the largest groups get
    :data:`GROUP_PALETTE` in order (ties by id), the rest :data:`OTHER_GROUP`.

    Computed once over every group of a graph, it gives a community the same
    colour in the whole graph, in a neighbourhood and in a walk.

    Examples
    --------
    >>> group_colours({"c2": 3, "c1": 9, "c3": 3})
    {'c1': '#E69F00', 'c2': '#56B4E9', 'c3': '#009E73'}
    """
    ranked = sorted(sizes, key=lambda g: (-sizes[g], g))
    return {g: GROUP_PALETTE[i] if i < len(GROUP_PALETTE) else OTHER_GROUP for i, g in enumerate(ranked)}


def community_colour(colours: Mapping[str, str], community: str | None) -> str:
    """The colour of ``community`` in every view of one index: the colour :func:`group_colours` fixed for it over
    the whole graph, else :data:`OTHER_GROUP` (a node in no community, or a community past the palette's end).

    The explorer and the walk view both colour an entity with this; the same node has one colour in both,
    in the light and the dark theme.

    Examples
    --------
    >>> fixed = group_colours({"c1": 9, "c2": 3})
    >>> community_colour(fixed, "c2"), community_colour(fixed, None), community_colour(fixed, "c9")
    ('#56B4E9', '#9E9E9E', '#9E9E9E')
    """
    return colours.get(community, OTHER_GROUP) if community else OTHER_GROUP


def color(name: str) -> str:
    """The colour of a role, or a stable palette colour for any other name."""
    if name in ROLES:
        return ROLES[name]
    return OKABE_ITO[1 + zlib.crc32(name.encode("utf-8")) % (len(OKABE_ITO) - 1)]


#: Height of one line of a chart's title, in pixels (its font size and leading).
TITLE_LINE_PX = 20
#: The band at the top of a figure where plotly draws its modebar (the zoom, pan and download buttons: 22 px
#: tall, 2 px below the top edge, about 260 px wide at the right) while the pointer is over the chart. A title
#: starts below it: drawn in it, a title's end was covered by the buttons whenever the chart was pointed at.
MODEBAR_PX = 32
#: Characters of a chart title's line: a longer title wraps onto more lines (plotly never wraps, it clips).
TITLE_LINE = 90


def wrap_title(title: str, width: int = TITLE_LINE) -> str:
    """``title`` broken into lines of at most ``width`` characters at spaces (``<br>``, as plotly reads it).

    Examples
    --------
    >>> wrap_title("Recall@5 by recipe (mean and 95% CI over the judged questions)", 30)
    'Recall@5 by recipe (mean and<br>95% CI over the judged<br>questions)'
    """
    lines: list[str] = []
    for paragraph in title.split("<br>"):
        line = ""
        for word in paragraph.split(" "):
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return "<br>".join(lines)


def title_margin(lines: int) -> int:
    """The top margin, in pixels, of a figure whose title has ``lines`` lines: the modebar's band, then the title.

    A line of the title measures about 25 px in Chromium (its 17 px font and leading).

    Examples
    --------
    >>> title_margin(1), title_margin(3)
    (90, 119)
    """
    return max(90, MODEBAR_PX + 12 + 25 * lines)


def title_pad(lines: int) -> int:
    """The space, in pixels, above a title of ``lines`` lines anchored at the figure's top: the modebar's band.

    plotly draws a title of several lines one line higher than its anchor (whatever their number), so such a
    title gets a line's height more.

    Examples
    --------
    >>> title_pad(1), title_pad(3)
    (32, 52)
    """
    return MODEBAR_PX + (TITLE_LINE_PX if lines > 1 else 0)


def style(fig: go.Figure, title: str, **layout: Any) -> go.Figure:
    """Apply the house style (title, font, white template, the :data:`LEGEND`) and ``layout``.

    The paper and plot are transparent: in JupyterLab the chart sits on the
    theme's background, and the workbench's stylesheet
    (:mod:`agrag_lab.widgets.theme`) gives text and grid lines the theme's colours.
    """
    text = wrap_title(title)
    lines = text.count("<br>") + 1
    top = title_margin(lines)
    fig.update_layout(
        # the title pushes the plot down rather than being cut (plotly's automargin); plotly's automargin draws a
        # wrapped title partly above the chart, so a title of several lines gets a top margin of their height.
        # It starts below the modebar's band (MODEBAR_PX), whose buttons would cover its end.
        title={"text": text, "x": 0.01, "xanchor": "left", "yref": "container", "y": 1.0, "yanchor": "top",
               "automargin": lines == 1, "pad": {"t": title_pad(lines)}},
        font=FONT,
        template="plotly_white",
        paper_bgcolor=TRANSPARENT,
        plot_bgcolor=TRANSPARENT,
        legend=dict(LEGEND),
        margin={"l": 20, "r": 20, "t": top, "b": 50},
    )
    fig.update_layout(**layout)
    if (fig.layout.margin.t or 0) < top:  # a caller's own top margin still leaves room for the title's lines
        fig.update_layout(margin_t=top)
    # long tick labels and axis titles grow the margins instead of being cut at the figure's edge
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig
