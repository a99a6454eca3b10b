"""The scale section of BENCHMARKS.md from ``benchmarks/results/scale.json``: a table and a log-log chart.

Written to ``benchmarks/results/scale.md`` and put in place in BENCHMARKS.md (the rest of it kept: what was
found and tried at scale is in its own section). Run alone to redraw from saved results:
``python -m benchmarks.scale_report``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.benchmarks_md import BENCHMARKS, update

RESULTS = Path(__file__).with_name("results")
TITLE = "Scale: 2k to 100k passages (issue 20)"
SKIP_SPANS = ("search",)


def _sizes(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    return sorted((r for r in results.values() if "query" in r), key=lambda r: r["n"])


#: How each series of ``scale.json`` embeds (``benchmarks.scale --embedder``), in the order shown.
SERIES = {
    "static": "**Static embeddings** (`--embedder static`: `StaticEmbedder`, model2vec distilled from the bundled "
              "model; every size up to 100k built this way)",
    "model": "**The bundled transformer** (all-MiniLM-L6-v2, the default), at the sizes this machine could embed "
             "in the time a run was given",
}


def series(results: Mapping[str, Any], embedder: str) -> dict[str, Any]:
    """The sizes of ``results`` built with ``embedder`` (``"model"`` for results from before the key existed)."""
    return {k: r for k, r in results.items() if r.get("embedder", "model") == embedder}


def _mb(b: float) -> str:
    return f"{b / 2**20:,.0f} MB"


def _gb(b: float) -> str:
    return f"{b / 2**30:.2f} GiB"


def recipes_of(rows: list[dict[str, Any]]) -> list[str]:
    """The recipes timed at some size, in the order of ``agrag_lab.recipes.RECIPES`` (then by name): the same
    order whether the results were just measured or read back from scale.json (whose keys are sorted)."""
    from agrag_lab.recipes import RECIPES

    order = {name: i for i, name in enumerate(RECIPES)}
    names = {name for r in rows for name, v in r["query"]["recipes"].items() if "p50" in v}
    return sorted(names, key=lambda name: (order.get(name, len(order)), name))


def _served(size: Mapping[str, Any]) -> dict[str, Any]:
    """A size's recipes timed with its vectors on a Chroma server (``query_served``), or its own when it was
    built on one (empty when neither)."""
    if size.get("server"):
        return dict(size["query"]["recipes"])
    return dict(size.get("query_served", {}).get("recipes", {}))


def _p50_p95(v: Mapping[str, Any]) -> str:
    return f"{v['p50'] * 1000:.0f} / {v['p95'] * 1000:.0f} ms" if "p50" in v else "-"


def table(results: Mapping[str, Any]) -> list[str]:
    rows = _sizes(results)
    failed = [r for r in results.values() if "query" not in r]
    lines: list[str] = []
    if not rows:
        return ["(no size built with the real model yet: see \"What did not work\" below)"] + [f"- {r['n']:,} passages: {r.get('error', 'not measured')}" for r in failed]
    names = recipes_of(rows)
    head = ["passages", *(f"{r['n']:,}" for r in rows)]
    lines += ["| " + " | ".join(head) + " |", "|---|" + "---|" * len(rows)]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    from agrag_lab.index.vectors import CACHED_SEARCH_LIMIT

    row("vectors (written; read by the query process)", [
        "Chroma server; over HTTP" if r.get("server") else
        "embedded Chroma; " + ("numpy, exact, over the vectors cached in documents.sqlite"
                               if r["chunks"] <= CACHED_SEARCH_LIMIT else "embedded Chroma")
        for r in rows])
    row("chunks / entities / relations / reports",
        [f"{r['chunks']:,} / {r['stats'].get('entities', 0):,} / {r['stats'].get('relations', 0):,} / "
         f"{r['stats'].get('reports', r['stats'].get('communities', 0)):,}" for r in rows])
    row("build (one ingest from empty)", [f"{r['build_s']:,.0f} s ({r['n'] / r['build_s']:.1f} passages/s)" for r in rows])
    row("index folder (+ server data)",
        [_mb(r["index_bytes"]) + (f" + {_mb(r['server_bytes'])}" if r.get("server") else "") for r in rows])
    row("index bytes / passage text bytes",
        [f"{(r['index_bytes'] + r.get('server_bytes', 0)) / r['text_bytes']:.0f}" for r in rows])
    row("peak RSS: build process (+ server)",
        [_gb(r["rss_build"]) + (f" + {_gb(r['rss_server_build'])}" if r.get("server") else "") for r in rows])
    row("**peak RSS: `Graph.open` + one GRAPH_EXPAND search** (target < 4 GiB at 100k)",
        [f"**{_gb(r['query']['rss_open_search'])}**" for r in rows])
    if any("rss_with_model" in r["query"] for r in rows):
        row("peak RSS of that process once the bundled transformer is loaded too",
            [_gb(r["query"]["rss_with_model"]) if "rss_with_model" in r["query"] else "-" for r in rows])
        row("the transformer's query embedding, p50 (what it would add to every search)",
            [f"{r['query']['model_query_embed_p50'] * 1000:.0f} ms" if "model_query_embed_p50" in r["query"] else "-"
             for r in rows])
    for name in names:
        cells = []
        for r in rows:
            v = r["query"]["recipes"].get(name, {})
            cpu = f" (CPU {v['cpu_p50'] * 1000:.0f})" if "cpu_p50" in v else ""
            cells.append(f"{v['p50'] * 1000:.0f} / {v['p95'] * 1000:.0f} ms{cpu}" if "p50" in v else "-")
        row(f"{name} p50 / p95 wall (CPU p50)", cells)
    if any("store_p50" in v for r in rows for v in r["query"]["recipes"].values()):
        for name in names:
            cells = []
            for r in rows:
                v = r["query"]["recipes"].get(name, {})
                cells.append(f"{v['own_p50'] * 1000:.0f} / {v['store_p50'] * 1000:.0f} ms" if "store_p50" in v else "-")
            row(f"{name} p50 of the run without its vector-store waits / p50 of those waits", cells)
    if any("query_served" in r for r in rows):
        for name in names:
            row(f"{name} p50 / p95 wall with the vectors on a Chroma server, over HTTP (as the served sizes)",
                [_p50_p95(_served(r).get(name, {})) for r in rows])
    for name in sorted({n for r in rows for n, v in r["query"]["recipes"].items() if "error" in v}):
        error = next(r["query"]["recipes"][name]["error"] for r in rows if "error" in r["query"]["recipes"].get(name, {}))
        row(f"{name}", [f"not run: {error.split(':')[0]} ({error.split('(')[0].split(': ', 1)[-1].strip()})"] * len(rows))
    lines.append("")
    small, large = rows[0], rows[-1]
    if large["n"] > small["n"]:
        like = "query_served" in small and bool(large.get("server"))
        lines += [f"Growth from {small['n']:,} to {large['n']:,} passages ({large['n'] / small['n']:.0f}x):", "",
                  "| recipe | " + ("p50 ratio" if like else "p50 ratio (target <= 3)") + " | p95 ratio "
                  "| p50 ratio without the vector-store waits "
                  "| p50 ratio of the vector-store waits |"
                  + (" **p50 ratio, both sizes' vectors on a Chroma server** (target <= 3) | p95 ratio, both served |"
                     if like else ""),
                  "|---|---|---|---|---|" + ("---|---|" if like else "")]
        for name in names:
            a, b = small["query"]["recipes"].get(name, {}), large["query"]["recipes"].get(name, {})
            if "p50" in a and "p50" in b:
                own = f"{b['own_p50'] / a['own_p50']:.2f}" if a.get("own_p50") and "own_p50" in b else "-"
                waits = f"{b['store_p50'] / a['store_p50']:.2f}" if a.get("store_p50") and "store_p50" in b else "-"
                served = _served(small).get(name, {})
                both = (f" **{b['p50'] / served['p50']:.2f}** | {b['p95'] / served['p95']:.2f} |" if "p50" in served
                        else " - | - |") if like else ""
                ratio = f"{b['p50'] / a['p50']:.2f}" if like else f"**{b['p50'] / a['p50']:.2f}**"
                lines.append(f"| {name} | {ratio} | {b['p95'] / a['p95']:.2f} | {own} | {waits} |{both}")
        lines.append("")
    for r in failed:
        lines.append(f"- {r['n']:,} passages: not measured: {r.get('error', '')}")
    if failed:
        lines.append("")
    return lines


def spans_table(results: Mapping[str, Any]) -> list[str]:
    """Median time of each step of each graph recipe's trace, per size: where the growth is."""
    rows = _sizes(results)
    if not rows:
        return []
    lines = ["Median step times (ms) from the traces (`run.trace.spans`):", "",
             "| recipe: step | " + " | ".join(f"{r['n']:,}" for r in rows) + " |", "|---|" + "---|" * len(rows)]
    for name in recipes_of(rows):
        spans: list[str] = []
        for r in rows:
            for s in r["query"]["recipes"].get(name, {}).get("spans", {}):
                if s not in spans and s not in SKIP_SPANS:
                    spans.append(s)
        for s in spans:
            cells = []
            for r in rows:
                v = r["query"]["recipes"].get(name, {}).get("spans", {}).get(s)
                cells.append(f"{v * 1000:.1f}" if v is not None else "-")
            lines.append(f"| {name}: {s} | " + " | ".join(cells) + " |")
    return lines


WALK_POINTER = ("The walk alone (push against power iteration, local paths, per size): "
                "`benchmarks/results/scale.md`.")


def for_benchmarks_md(lines: Sequence[str]) -> list[str]:
    """``lines`` without what BENCHMARKS.md leaves to ``benchmarks/results/scale.md``.

    Each table of step times (:func:`spans_table`) becomes a line naming ``scale.md``, so does the walk alone
    (:func:`walk_lines`, its table and chart), and the rows of the settings tried and not kept (``| tried: ...``)
    are left out: BENCHMARKS.md keeps the figures of what runs.

    Examples
    --------
    >>> for_benchmarks_md(["a", "Median step times (ms) from x:", "", "| h |", "|---|", "| r |", "", "| tried: x |"])
    ['a', 'Median step times of every recipe: `benchmarks/results/scale.md`.', '']
    >>> for_benchmarks_md(["**The walk alone**, on graphs ...", "", "| n |", "", "![the walk alone](x.png)", "b"])
    ['The walk alone (push against power iteration, local paths, per size): `benchmarks/results/scale.md`.', 'b']
    """
    out: list[str] = []
    skipping, in_table, in_walk = False, False, False
    for line in lines:
        if line.startswith("**The walk alone**"):
            out.append(WALK_POINTER)
            in_walk = True
            continue
        if in_walk:
            in_walk = not line.startswith("![the walk alone]")
            continue
        if line.startswith("Median step times (ms)"):
            out.append("Median step times of every recipe: `benchmarks/results/scale.md`.")
            skipping, in_table = True, False
            continue
        if skipping and (line.startswith("|") or (not line and not in_table)):
            in_table = in_table or line.startswith("|")
            continue
        skipping = False
        if not line.startswith("| tried: "):
            out.append(line)
    return out


def walk_lines(png: Path | None = None) -> list[str]:
    """The walk alone (``benchmarks/scale_walk.py``), when it was measured."""
    from benchmarks import scale_walk

    saved = RESULTS / "scale_walk.json"
    if not saved.is_file():
        return []
    rows = list(json.loads(saved.read_text()).values())
    doc = (scale_walk.__doc__ or "").split("\n\n")[1].replace("\n", " ")
    doc = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", doc).replace("``", "`")
    lines = ["", "**The walk alone**, on graphs built without embedding (CPU time). " + doc, "",
             *scale_walk.table(rows)]
    if png is not None:
        from benchmarks.figures import save_png

        save_png(walk_figure(rows), png)
        lines += ["", f"![the walk alone]({png.relative_to(Path(__file__).resolve().parents[1]).as_posix()})"]
    return lines


def walk_figure(rows: list[dict[str, Any]]) -> Any:
    """Log-log: each part of the walk (CPU ms, p50) against passages, with a line proportional to passages."""
    import plotly.graph_objects as go

    from agrag_lab.charts.palette import OKABE_ITO
    rows = sorted(rows, key=lambda r: r["n"])
    ns = [r["n"] for r in rows]
    parts = [("walk", "GRAPH_EXPAND's walk, as the engine runs it (push, local paths)"),
             ("walk_power", "the walk before (power iteration, paths over the whole graph)"),
             ("push", "forward push, eps 1e-6"), ("pagerank", "power iteration"),
             ("paths", "path search, local"), ("paths_global", "path search over the whole graph"),
             ("keyword", "bm25s keyword search")]
    fig = go.Figure()
    for i, (key, name) in enumerate(parts):
        ys = [r.get(f"{key}_p50") for r in rows]
        fig.add_trace(go.Scatter(x=ns, y=[y * 1000 if y else None for y in ys], name=name, mode="lines+markers",
                                 line={"color": OKABE_ITO[(i + 1) % len(OKABE_ITO)],
                                       "dash": "dash" if key in ("walk_power", "pagerank", "paths_global") else "solid"}))
    base = rows[0]["walk_p50"] * 1000
    fig.add_trace(go.Scatter(x=ns, y=[base * n / ns[0] for n in ns], name="proportional to passages",
                             mode="lines", line={"dash": "dot", "color": "#888"}))
    fig.update_xaxes(type="log", title_text="passages")
    fig.update_yaxes(type="log", title_text="CPU ms per query (p50)")
    fig.update_layout(height=480, template="plotly_white", title=f"The walk alone, {ns[0]:,} to {ns[-1]:,} passages",
                      legend={"orientation": "h", "y": -0.25}, margin={"l": 70, "r": 20, "t": 60, "b": 60})
    return fig


def figure(results: Mapping[str, Any]) -> Any:
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from agrag_lab.charts.palette import OKABE_ITO as QUALITATIVE

    rows = _sizes(results)
    ns = [r["n"] for r in rows]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("query p50 per recipe (ms)", "build, size and memory"))
    for i, name in enumerate(recipes_of(rows)):
        ys = [r["query"]["recipes"].get(name, {}).get("p50") for r in rows]
        fig.add_trace(go.Scatter(x=ns, y=[y * 1000 if y else None for y in ys], name=name, mode="lines+markers",
                                 line={"color": QUALITATIVE[i % len(QUALITATIVE)]}, legendgroup="q"), 1, 1)
    if rows:
        first = rows[0]["query"]["recipes"]
        base = min(v["p50"] for v in first.values() if "p50" in v) * 1000
        fig.add_trace(go.Scatter(x=ns, y=[base * n / ns[0] for n in ns], name="linear in passages",
                                 mode="lines", line={"dash": "dot", "color": "#888"}), 1, 1)
    others = (
        ("build (s)", [r["build_s"] for r in rows]),
        ("index + server data (MB)", [(r["index_bytes"] + r.get("server_bytes", 0)) / 2**20 for r in rows]),
        ("peak RSS open + GRAPH_EXPAND (MB)", [r["query"]["rss_open_search"] / 2**20 for r in rows]),
    )
    for j, (name, ys) in enumerate(others):
        fig.add_trace(go.Scatter(x=ns, y=ys, name=name, mode="lines+markers",
                                 line={"color": QUALITATIVE[(j + 7) % len(QUALITATIVE)], "dash": "dash"}), 1, 2)
    fig.update_xaxes(type="log", title_text="passages")
    fig.update_yaxes(type="log")
    fig.update_layout(height=520, template="plotly_white", legend={"orientation": "h", "y": -0.2},
                      margin={"l": 60, "r": 20, "t": 60, "b": 60})
    return fig


def section(results: Mapping[str, Any], png: Path | None = None) -> list[str]:
    from benchmarks.scale_corpus import describe

    counts = describe()
    rows = _sizes(results)
    when = max((r.get("measured", "") for r in rows), default="")
    machine = next((r.get("machine", "") for r in rows), "")
    loads = [x for r in rows for q in (r.get("query", {}), r.get("query_served", {})) for x in q.get("load", ())]
    load = (f"the machine's 1-minute load average while querying was {min(loads):.1f}-{max(loads):.1f}"
            if loads else "the run did not record the machine's load")
    measured = (
        f"Measured {when} on {machine} by `make bench-scale` (`benchmarks/scale.py`); {load}. Latencies on a "
        "loaded machine are high; the ratios between sizes are the figure."
        if rows else "`make bench-scale` (`benchmarks/scale.py`) has not finished a size with the real model yet."
    )
    lines = [
        measured,
        "",
        f"**Corpus** (`benchmarks/scale_corpus.py`): every real passage we have, {sum(counts.values()):,} in all: "
        + ", ".join(f"{k} {v:,}" for k, v in counts.items())
        + " (MuSiQue, the workshop corpus, SciFact's 5,183 abstracts, GraphRAG-Bench Medical, the text units of "
        "the GraphRAG run over *A Christmas Carol*; each cut into passages by the library's chunker, 800 "
        "characters, one passage per document), in SHA-1 order of id so that each size is a proportional mix "
        "and holds the smaller ones. Past the real passages, round r adds one variant per real passage: the "
        "second half of its sentences then the first half of the r-th next passage of the same data set, "
        "packed to 800 characters (new text made only of real sentences; nothing copied verbatim).",
        "",
        "Each size is built from empty in one `ingest` (chunks, rule extraction, the graph, Leiden, reports, "
        "graph records, Chroma, bm25s) in its own process; another process opens it read-only and runs every "
        "built-in recipe on the first 30 MuSiQue questions (one warm-up each; HYBRID_RERANKED with a MiniLM-L6 "
        "cross-encoder of untrained head, the cost of a real one, as no trained one can be had offline). "
        "On these 2 shared cores the bundled transformer embeds about 4-10 passages of 800 characters a second, "
        "so 100k passages would take 3-7 hours to embed before any graph is built: the series that reaches "
        "100k embeds with static embeddings (`StaticEmbedder`), which changes only the vectors (their "
        "quality cost is in \"Static embeddings: the cost in quality\" below). Query time is measured with "
        "the index's own embedder; the transformer's query embedding is timed beside it, and its memory is "
        "included in the second RSS row.",
        "",
        *(line for name, head in SERIES.items() if series(results, name)
          for line in (head, "", *table(series(results, name)), *spans_table(series(results, name)), "")),
        *walk_lines(png.with_name("scale_walk.png") if png is not None else None),
    ]
    if png is not None and rows:
        from benchmarks.figures import save_png

        save_png(figure(series(results, "static") or results), png)
        lines += ["", f"![scale]({png.relative_to(Path(__file__).resolve().parents[1]).as_posix()})"]
    return lines


def write(results: Mapping[str, Any]) -> Path:
    out = RESULTS / "scale.md"
    png = (RESULTS / "scale.png").resolve()
    try:
        lines = section(results, png)
    except Exception as exc:  # the chart needs Chromium; the table must survive without it
        lines = [*section(results, None), "", f"(chart not drawn: {type(exc).__name__}: {exc})"]
    out.write_text("\n".join([f"## {TITLE}", "", *lines, ""]), encoding="utf-8")
    # and in place in BENCHMARKS.md (its first line, when and how it was measured, is the section's stamp)
    short = for_benchmarks_md(lines)
    update(BENCHMARKS, [(TITLE, short[2:] if len(short) > 1 and not short[1] else short[1:])], short[0])
    print(f"wrote {out} and its section of {BENCHMARKS.name}", file=sys.stderr)
    return out


def main() -> int:
    saved = RESULTS / "scale.json"
    write(json.loads(saved.read_text()) if saved.is_file() else {})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
