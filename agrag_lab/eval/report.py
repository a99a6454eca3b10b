"""Write an evaluation to disk: CSV tables, JSON, and a self-contained HTML report.

The HTML embeds plotly.js once (no network needed to view it) and holds the
summary table, the per-group table, and the charts of
:mod:`agrag_lab.charts` (metrics with confidence intervals, per-query wins
and losses against the best baseline, metrics by hop count).

Examples
--------
>>> import tempfile
>>> from agrag_lab.eval.result import EXAMPLE, EvalResult
>>> paths = write_report(EvalResult.from_dict(EXAMPLE), tempfile.mkdtemp())
>>> sorted(paths)
['csv', 'html', 'json', 'per_query_csv']
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab.charts import metric_by_group, metric_comparison, wins_losses
from agrag_lab.charts.evaluation import pretty
from agrag_lab.errors import EvaluationError
from agrag_lab.eval.marks import letters, result_marks
from agrag_lab.eval.result import ALPHA, EvalResult, format_p

if TYPE_CHECKING:
    import plotly.graph_objects as go

#: A report block: a heading and either raw HTML or a figure.
Block = tuple[str, "str | go.Figure"]

_STYLE = """
body{font-family:Arial,Helvetica,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f2f2f2} td:first-child,th:first-child{text-align:left}
pre{background:#f7f7f7;padding:1em;overflow-x:auto;font-size:13px}
.note{color:#555}
"""


def render_html(title: str, blocks: Sequence[Block], *, intro: str = "") -> str:
    """A self-contained HTML page: each block is a heading plus HTML or a plotly figure."""
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
    ]
    if intro:
        parts.append(f"<p class='note'>{intro}</p>")
    first = True
    for heading, body in blocks:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        if isinstance(body, str):
            parts.append(body)
        else:
            parts.append(body.to_html(full_html=False, include_plotlyjs=first))
            first = False
    parts.append("</body></html>")
    return "\n".join(parts)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3f}"
    return html.escape("" if value is None else str(value))


def summary_table(result: EvalResult) -> str:
    """The summary as an HTML table, marked as ranx's reports: mean [CI] per metric, p-value against the reference.

    Each system has a letter; the best mean of a metric is bold, and a
    superscript lists the letters of the systems it is significantly above
    (:mod:`agrag_lab.eval.marks`, the rule the widgets follow).
    """
    letter = letters(result.names)
    marked = result_marks(result)
    head = "".join(f"<th>{pretty(m)}</th>" for m in result.metrics)
    rows = [f"<table><tr><th>#</th><th>system</th><th>kind</th>{head}<th>p ({pretty(result.primary)})</th>"
            "<th>verdict</th><th>ms/query</th></tr>"]
    for s in result.systems:
        cells = []
        for m in result.metrics:
            mark = marked[s.name][m]
            mean = f"<b>{s.mean[m]:.3f}</b>" if mark.best else f"{s.mean[m]:.3f}"
            sup = f"<sup title='{html.escape(mark.title)}'>{mark.sup}</sup>" if mark.sup else ""
            cells.append(f"<td>{mean}{sup}<br><small>[{s.ci[m][0]:.3f}, {s.ci[m][1]:.3f}]</small></td>")
        reference = s.name == result.reference
        p5 = "reference" if reference else format_p(result.p_values.get(s.name, {}).get(result.primary))
        verdict = "" if reference else result.verdict(s.name, result.primary)
        rows.append(
            f"<tr><td>{letter[s.name]}</td><td title='{html.escape(s.description)}'>{html.escape(s.name)}</td>"
            f"<td>{s.kind}</td>{''.join(cells)}<td>{p5}</td><td>{verdict}</td><td>{s.ms_per_query:.0f}</td></tr>"
        )
    for name, why in result.skipped.items():
        rows.append(
            f"<tr><td></td><td>{html.escape(name)}</td><td colspan='{len(result.metrics) + 4}' style='text-align:left'>"
            f"skipped: {html.escape(why)}</td></tr>"
        )
    rows.append("</table>")
    rows.append(
        f"<p class='note'>Mean over {len(result.queries)} queries; [95% CI: {html.escape(result.ci_method)}]. "
        f"As in ranx's reports: <b>bold</b> = the best mean of the metric; a superscript lists the systems the "
        f"mean is significantly above (paired two-sided {html.escape(result.stat_test)} test, p &lt; {ALPHA}). "
        f"p and verdict: against the reference <b>{html.escape(result.reference)}</b>.</p>"
    )
    rows.extend(f"<p class='note'>Note: {html.escape(n)}</p>" for n in result.notes)
    return "\n".join(rows)


def group_table(result: EvalResult) -> str:
    """The per-group breakdown (e.g. hops) as an HTML table, or '' without groups."""
    if not result.groups:
        return ""
    frame = result.by_group()
    cols = frame.columns
    out = ["<table><tr>" + "".join(f"<th>{html.escape(pretty(c))}</th>" for c in cols) + "</tr>"]
    for row in frame.iter_rows():
        out.append("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def report_blocks(result: EvalResult, metrics: Sequence[str] = ("recall@5", "ndcg@10")) -> list[Block]:
    """The blocks of an evaluation report (tables and charts)."""
    blocks: list[Block] = [("Results", summary_table(result))]
    primary = result.primary if result.primary in result.metrics else result.metrics[0]
    for m in dict.fromkeys((primary, *metrics)):
        if m in result.metrics:
            blocks.append((f"{pretty(m)} per system", metric_comparison(result, m)))
    blocks.append((f"Wins and losses against {result.reference}", wins_losses(result, metric=primary)))
    if result.groups:
        blocks.append(("By query group", group_table(result)))
        blocks.append((f"{pretty(primary)} by query group", metric_by_group(result, primary)))
    config = html.escape(json.dumps(dict(result.config), indent=2, default=str))
    blocks.append(("Settings", f"<pre>{config}</pre>"))
    return blocks


def report_folder(out: str | Path) -> Path:
    """The report folder ``out``, made if missing.

    Raises
    ------
    EvaluationError
        It cannot be made or written (the message names it; choose another).

    Examples
    --------
    >>> import tempfile
    >>> report_folder(Path(tempfile.mkdtemp()) / "reports" / "eval").is_dir()
    True
    >>> report_folder("/proc/no-reports-here")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.EvaluationError: cannot write the report into /proc/no-reports-here (No such file or directory); choose a writable folder (--out)
    """
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".agrag-write-check"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise EvaluationError(
            f"cannot write the report into {folder} ({exc.strerror or exc}); choose a writable folder (--out)"
        ) from exc
    return folder


def write_report(result: EvalResult, out: str | Path, *, stem: str | None = None) -> dict[str, Path]:
    """Write ``<stem>.csv``, ``<stem>.per_query.csv``, ``<stem>.json`` and ``<stem>.html`` into ``out``.

    ``stem`` defaults to the benchmark name. Returns the paths by kind.

    Raises
    ------
    EvaluationError
        ``out`` cannot be made or written (:func:`report_folder`).
    """
    folder = report_folder(out)
    name = stem or result.benchmark
    paths = {
        "csv": folder / f"{name}.csv",
        "per_query_csv": folder / f"{name}.per_query.csv",
        "json": folder / f"{name}.json",
        "html": folder / f"{name}.html",
    }
    result.to_polars().write_csv(paths["csv"])
    result.per_query_frame().write_csv(paths["per_query_csv"])
    paths["json"].write_text(json.dumps(result.to_dict(), indent=1, default=float), encoding="utf-8")
    page = render_html(f"Evaluation on {result.benchmark}", report_blocks(result))
    paths["html"].write_text(page, encoding="utf-8")
    return paths
