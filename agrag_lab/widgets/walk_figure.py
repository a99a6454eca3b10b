"""The walk figure: :func:`walk_figure` draws a :class:`~agrag_lab.widgets.walk_model.WalkGraph` with plotly.

Shape tells the kind (entity, passage, report), colour an entity's community
(keyed by community id over the whole graph, as the explorer's) and a
passage's or report's kind; relation types, weights and descriptions show on
hover at an edge's middle; :func:`names_html` lists every node's whole name.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from agrag_lab.charts.palette import (
    MODEBAR_PX,
    OTHER_GROUP,
    ROLES,
    TITLE_LINE_PX,
    community_colour,
    group_colours,
    style,
    wrap_title,
)
from agrag_lab.names import clip_name
from agrag_lab.widgets._text import short
from agrag_lab.widgets.walk_model import KIND_NAMES, MEMBER_OF, PRIOR_X, WalkGraph, WalkNode

#: Colour of an entity in no community (or past the palette's end): the explorer's (:data:`OTHER_GROUP`).
NO_COMMUNITY = OTHER_GROUP
#: Behind a node's name: white at 90 % in the figure; in JupyterLab, the theme's background (theme.css).
NAME_BACKGROUND = "rgba(255,255,255,0.9)"
#: Marker shape per kind of node (filled; ``-open`` for a node that is only on a path).
SHAPES = {"entity": "circle", "chunk": "square", "community": "diamond"}
#: Marker size per role.
SIZES = {"seed": 22, "prior": 14, "added": 16, "path": 13, "report": 16}
#: Fill colour per kind and role (Okabe-Ito, as every chart: entity blue, passage orange,
#: a dense-prior passage sky blue as the dense method, a report purple).
COLOURS = {"entity": ROLES["entity"], "chunk": ROLES["chunk"], "prior": ROLES["dense"], "community": ROLES["community"]}
#: What each legend entry says, in legend order: (kind, role) -> text.
LEGEND = {
    ("entity", "seed"): "seed entity (the question names it)",
    ("chunk", "prior"): "dense-prior passage (a restart point)",
    ("entity", "added"): "entity the walk added",
    ("chunk", "added"): "passage the walk added",
    ("entity", "path"): "entity on a path",
    ("chunk", "path"): "passage on a path",
    ("community", "report"): "community report the run added",
}
#: Characters of a line of a node's name drawn beside it, at most (two lines; the whole name is in the hover and the side list).
NAME_WIDTH = 36
#: The plot width the names are fitted to: the view's left column (its node panel beside it) in a notebook's
#: cell at 1366x768, the file browser open.
FIT_WIDTH_PX = 620
#: The tallest the figure is drawn, in pixels: with the view's header it stays inside the notebook's visible
#: height at 1366x768 (768 px less JupyterLab's menu, tab and tool bars and status bar: about 640 px).
MAX_HEIGHT_PX = 560
#: Height of a row of nodes whose names take two lines, in pixels; rows closer than this get one-line names.
ROW_PX = 30
#: The figure's height outside its rows of nodes, in pixels: the modebar's band and the title above the top
#: axis (90), the legend below (110).
FRAME_PX = MODEBAR_PX + 200
#: Characters of a line of the figure's title: it wraps inside the drawing's column (:data:`FIT_WIDTH_PX`).
TITLE_CHARS = 54
#: A walk of at most this many columns (a traverse to depth 2) is drawn compact, beside the node panel; a
#: longer one (a search's prior, seeds and hops) takes the cell's width, :data:`WIDE_FIT_WIDTH_PX`, the panel
#: below it, and rows tall enough for two-line names.
COMPACT_COLUMNS = 3
#: The plot width the names of a longer walk are fitted to (the whole cell at 1366x768, the sidebar open).
WIDE_FIT_WIDTH_PX = 900


def fit_width(columns: int) -> int:
    """The plot width, in pixels, a walk of ``columns`` columns is drawn for (:data:`COMPACT_COLUMNS`).

    Examples
    --------
    >>> fit_width(2), fit_width(7)
    (620, 900)
    """
    return FIT_WIDTH_PX if columns <= COMPACT_COLUMNS else WIDE_FIT_WIDTH_PX
#: Average width of a 12 px Arial character, in pixels.
CHAR_PX = 6.6


def _wrap(text: str, width: int = 60, limit: int = 320) -> str:
    text = short(text, limit)
    lines, line = [], ""
    for word in text.split():
        if len(line) + len(word) + 1 > width and line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "<br>".join(html.escape(x) for x in lines)


def community_colours(graph: WalkGraph) -> dict[str | None, str]:
    """A colour per community of the walk, by the one rule of every view (:func:`~agrag_lab.charts.palette.community_colour`).

    With the graph's colours (keyed by community id over the whole graph, as the explorer's) a community has its
    colour there; without them (a run drawn without its index), :func:`~agrag_lab.charts.palette.group_colours`
    ranks the walk's own communities by how many of its nodes they hold. An entity in no community, and a
    community past the palette's end, are :data:`NO_COMMUNITY` grey (the hover names each community).
    """
    fixed = dict(graph.colours)
    if not fixed:
        counts: dict[str, int] = {}
        for n in graph.nodes:
            if n.community:
                counts[n.community] = counts.get(n.community, 0) + 1
        fixed = group_colours(counts)
    colours: dict[str | None, str] = {c: community_colour(fixed, c) for c in graph.communities}
    colours[None] = NO_COMMUNITY
    return colours


def name_width(columns: int) -> int:
    """Characters of a name that fit between two columns of a plot :func:`fit_width` wide.

    Examples
    --------
    >>> name_width(2), name_width(3), name_width(7)
    (35, 23, 14)
    """
    per_column = fit_width(columns) / (max(columns, 1) - 0.45 + 0.85)
    return max(12, min(NAME_WIDTH, int((per_column - 24) / CHAR_PX)))


def short_name(title: str, width: int = NAME_WIDTH) -> str:
    """``title`` cut to ``width`` characters, keeping a passage's ``#cN`` (it tells passages apart).

    Examples
    --------
    >>> short_name("Charles Babbage > Friends and correspondents #c8", 28)
    'Charles Babbage > Frien… #c8'
    """
    return clip_name(title, width)


def name_lines(title: str, width: int) -> str:
    """``title`` on at most two lines of ``width`` characters (plotly's ``<br>``), the second cut by :func:`short_name`.

    Seven columns leave about 14 characters a line: on one line a passage's name read
    "Abshir At… #c0"; on two, "Abshir Ata" / "Waterfall… #c0".

    Examples
    --------
    >>> name_lines("Abshir Ata Waterfall: is a geological reserve #c0", 14)
    'Abshir Ata<br>Waterfall… #c0'
    >>> name_lines("Charles Babbage", 14)
    'Charles<br>Babbage'
    >>> name_lines("Zimbabwe", 14)
    'Zimbabwe'
    """
    text = " ".join(title.split())
    if len(text) <= width:
        return html.escape(text)
    words = text.split(" ")
    first = words[0][:width]
    rest = text[len(first):].strip()
    for word in words[1:]:
        if len(first) + 1 + len(word) > width:
            break
        first = f"{first} {word}"
        rest = rest[len(word):].strip()
    return f"{html.escape(first)}<br>{html.escape(short_name(rest, width))}"


def node_style(node: WalkNode) -> tuple[str, str, int]:
    """``(symbol, colour, size)`` of a node: shape by kind, colour by kind (a prior passage as the dense method)."""
    symbol = SHAPES.get(node.kind, "circle") + ("-open" if node.role == "path" else "")
    colour = COLOURS["prior"] if node.role == "prior" else COLOURS.get(node.kind, COLOURS["entity"])
    return symbol, colour, SIZES.get(node.role, 14)


def _hover(graph: WalkGraph, n: WalkNode) -> str:
    kind = KIND_NAMES.get(n.kind, n.kind)
    where = {
        "seed": "seed: the walk starts here",
        "prior": f"dense-prior passage #{n.rank}: the walk restarts here",
        "added": f"added by the walk, #{n.rank}" + (f", {n.hop} steps from {html.escape(_title(graph, n.seed))}"
                                                    if n.hop else ""),
        "path": f"on the path, {n.hop} steps from {html.escape(_title(graph, n.seed))}",
        "report": "report the run added; its members here: " + ", ".join(
            html.escape(_title(graph, e.source)) for e in graph.edges if e.relation == MEMBER_OF and e.target == n.id),
    }.get(n.role, n.role)
    also = f"<br>also dense-prior hit #{n.prior_rank}" if n.prior_rank and n.role != "prior" else ""
    label = f" · {html.escape(n.label)}" if n.label else ""
    community = f"<br>community: {html.escape(n.community_title)}" if n.community_title else ""
    return f"<b>{html.escape(n.title)}</b> ({kind}{label})<br>{where}{also}{community}<br>{_wrap(n.description)}"


def walk_figure(graph: WalkGraph, *, highlight: str | None = None) -> go.Figure:
    """Draw the walk: the dense prior, the seeds, then hops left to right; shape and colour by kind.

    Relation types are shown when the pointer rests on an edge's middle
    (never as text over the drawing, so they cannot cover a node's name).
    Trace order (the widget relies on it): 0 edges, 1 highlighted path,
    2 edge hover points, then one node trace per legend entry
    (:data:`LEGEND` order).
    """
    fig = go.Figure()
    pos = {n.id: (n.x, n.y) for n in graph.nodes}
    names = {n.id: n.title for n in graph.nodes}
    ex: list[float | None] = []
    ey: list[float | None] = []
    mx, my, mtext = [], [], []
    for e in graph.edges:
        if e.relation == MEMBER_OF:  # drawn only when the report is selected: a long line would cross the walk
            continue
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        ex += [x0, x1, None]
        ey += [y0, y1, None]
        mx.append((x0 + x1) / 2)
        my.append((y0 + y1) / 2)
        note = graph.relation_notes.get(e.key, "")
        mtext.append(f"{html.escape(names.get(e.source, e.source))} <b>-[{html.escape(e.relation)}]-&gt;</b> "
                     f"{html.escape(names.get(e.target, e.target))}" + (f"<br>{_wrap(note)}" if note else ""))
    fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line={"color": "#9E9E9E", "width": 1.5},
                             hoverinfo="skip", name="relations", showlegend=False))
    hx, hy = _path_xy(graph, highlight, pos)
    fig.add_trace(go.Scatter(x=hx, y=hy, mode="lines", line={"color": ROLES["loss"], "width": 4},
                             hoverinfo="skip", name="path to the selected node", showlegend=bool(hx)))
    fig.add_trace(go.Scatter(
        x=mx, y=my, mode="markers", marker={"size": 12, "color": "rgba(0,0,0,0)", "symbol": "circle"},
        hovertext=mtext, hoverinfo="text", name="relation (hover an edge's middle)", showlegend=False,
        meta="edge-labels",
    ))
    groups: dict[tuple[str, str], list[WalkNode]] = {}
    for n in graph.nodes:
        groups.setdefault((n.kind, n.role), []).append(n)
    palette = community_colours(graph)
    # an index with communities colours every entity by its community (grey for none, as the explorer does), so
    # an entity outside every community is not drawn in the entity-kind blue here and grey in the explorer
    by_community = bool(graph.colours) or any(n.community for n in graph.nodes if n.kind == "entity")
    for key in [*LEGEND, *(k for k in groups if k not in LEGEND)]:
        members = groups.get(key)
        if not members:
            continue
        symbol, colour, size = node_style(members[0])
        # entities take their community's colour (the explorer's, keyed by community id); shape tells the kind
        fill: Any = [palette.get(n.community, NO_COMMUNITY) for n in members] \
            if key[0] == "entity" and by_community else colour
        fig.add_trace(go.Scatter(
            x=[n.x for n in members], y=[n.y for n in members], mode="markers",
            cliponaxis=False,
            marker={"color": fill, "size": size, "symbol": symbol,
                    "line": {"width": 3 if key[1] == "seed" else 2, "color": colour if key[1] == "path" else "#333333"}},
            customdata=[n.id for n in members],
            hovertext=[_hover(graph, n) for n in members],
            hoverinfo="text", name=LEGEND.get(key, f"{KIND_NAMES.get(key[0], key[0])}: {key[1]}"),
        ))
    if by_community:  # one legend entry per community colour, after the shapes
        titles = {n.community: n.community_title for n in graph.nodes if n.community}
        for community in dict.fromkeys(n.community for n in graph.nodes if n.kind == "entity" and n.community):
            fig.add_trace(go.Scatter(
                x=[None], y=[None], mode="markers", hoverinfo="skip", legendgroup="communities",
                marker={"color": palette.get(community, NO_COMMUNITY), "size": 12, "symbol": "circle"},
                name=f"community: {short(titles.get(community, community) or community, 40)}",
            ))
        if any(n.kind == "entity" and not n.community for n in graph.nodes):
            fig.add_trace(go.Scatter(
                x=[None], y=[None], mode="markers", hoverinfo="skip", legendgroup="communities",
                marker={"color": NO_COMMUNITY, "size": 12, "symbol": "circle"}, name="community: none",
            ))
    columns = sorted({n.x for n in graph.nodes})
    width = name_width(len(columns))
    rows = max((sum(1 for n in graph.nodes if n.x == x) for x in columns), default=1)
    # a row per node, as tall as a two-line name, up to the height that fits the screen; then one-line names
    compact = len(columns) <= COMPACT_COLUMNS
    # a longer walk too stays inside the screen while its rows keep room for two-line names
    wide = max(460, FRAME_PX + 40 * rows)
    height = (min(MAX_HEIGHT_PX, max(420, FRAME_PX + ROW_PX * rows)) if compact
              else MAX_HEIGHT_PX if wide > MAX_HEIGHT_PX and (MAX_HEIGHT_PX - FRAME_PX) / rows >= ROW_PX else wide)
    two_lines = not compact or (height - FRAME_PX) / max(rows, 1) >= ROW_PX
    for n in graph.nodes:  # names right of their node, on a background: an edge passing behind never hides one
        fig.add_annotation(
            x=n.x, y=n.y, text=name_lines(n.title, width) if two_lines else html.escape(short_name(n.title, width)),
            showarrow=False, align="left",
            xanchor="left", xshift=12, font={"size": 12},
            # the page's background, 90 % opaque (theme.css gives it and the text the theme's colours)
            bgcolor=NAME_BACKGROUND, borderpad=1, name=f"node:{n.id}",
        )
    ticks = [column_label(graph, x) for x in columns]
    lo, hi = (columns[0], columns[-1]) if columns else (0.0, 1.0)
    # the title's parenthesis as a subtitle: one line ran past the figure's edge at 1366x768, and a
    # "<br>" title anchored at the top was drawn half above the figure (plotly places a two-line title by its first line)
    head, paren, rest = html.escape(graph.title).partition(" (")
    if compact:
        head = wrap_title(head, TITLE_CHARS)  # inside the drawing's column, beside the node panel
    lines = head.count("<br>") + 1 + (1 if paren else 0)
    style(
        fig, head, height=height,
        legend={"title": {"text": "shape: kind · hollow: only on a path"}},
        margin={"l": 10, "r": 10, "t": max(90, 50 + TITLE_LINE_PX * lines) + MODEBAR_PX, "b": 110},
        xaxis={"title": None, "tickvals": columns, "ticktext": ticks, "side": "top", "zeroline": False,
               "showgrid": True, "range": [lo - 0.45, hi + 0.85]},
        yaxis={"visible": False, "range": [min(n.y for n in graph.nodes) - 0.8, max(n.y for n in graph.nodes) + 0.8]}
        if graph.nodes else {"visible": False},
        hovermode="closest", dragmode="pan", autosize=True,
    )
    if paren:
        fig.update_layout(title_subtitle_text=f"{paren.strip()}{rest}")
    return fig


def column_label(graph: WalkGraph, x: float) -> str:
    """What a column of the drawing holds: ``dense prior``, ``seeds``, ``N steps`` or ``reports``."""
    if x == PRIOR_X:
        return "dense prior"
    if x == 0:
        return "seeds"
    if any(n.x == x and n.role == "report" for n in graph.nodes):
        return "reports"
    return f"{int(x)} step{'s' if x > 1 else ''}"


def names_html(graph: WalkGraph) -> str:
    """Every node's whole name, column by column (the drawing cuts long names; this list and the hover do not).

    Each name carries its community's colour as a dot (entities) and its id in the hover.
    """
    palette = community_colours(graph)
    parts = []
    for x in sorted({n.x for n in graph.nodes}):
        names = []
        for n in sorted((n for n in graph.nodes if n.x == x), key=lambda n: -n.y):
            dot = (f"<span class='agrag-walk-dot' style='background:{palette.get(n.community, NO_COMMUNITY)}'></span>"
                   if n.kind == "entity" and n.community else "")
            names.append(f"<span class='agrag-walk-name' title='{html.escape(n.id)}'>{dot}{html.escape(n.title)}</span>")
        parts.append(f"<div><b>{html.escape(column_label(graph, x))}</b>: {' · '.join(names)}</div>")
    return ("<details class='agrag-walk-names' open><summary>every node's whole name, by column</summary>"
            + "".join(parts) + "</details>")


def _title(graph: WalkGraph, node_id: str) -> str:
    for n in graph.nodes:
        if n.id == node_id:
            return n.title
    return node_id


def _path_xy(
    graph: WalkGraph, node_id: str | None, pos: Mapping[str, tuple[float, float]]
) -> tuple[list[float | None], list[float | None]]:
    xs: list[float | None] = []
    ys: list[float | None] = []
    if not node_id:
        return xs, ys
    steps = graph.path_to(node_id) or tuple(e.key for e in graph.edges if e.relation == MEMBER_OF and e.target == node_id)
    for a, _, b in steps:
        xs += [pos[a][0], pos[b][0], None]
        ys += [pos[a][1], pos[b][1], None]
    return xs, ys
