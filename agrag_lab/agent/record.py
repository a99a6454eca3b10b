"""What an agent did: :class:`Step` per tool call, :class:`AgentAnswer` per question.

Both are frozen and JSON-safe (``to_dict()``); an answer shows itself in a
notebook (``_repr_html_``: the answer, its Sources, the steps) and gives its
steps as a polars table (``steps_frame()``).

Examples
--------
>>> s = Step(1, "search_evidence", {"query": "Note G"}, ("ada@0123456789ab#c3",), 0.01)
>>> s.to_dict()["result_ids"]
['ada@0123456789ab#c3']
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agrag_lab.evidence.results import CitationCheck, Reference
from agrag_lab.serialize import to_data

if TYPE_CHECKING:
    import polars as pl

__all__ = ["AgentAnswer", "Step"]


@dataclass(frozen=True)
class Step:
    """One tool call of an agent run.

    Attributes
    ----------
    number : int
        1-based position in the run.
    tool : str
        The tool called (``search_evidence``, ``fetch_evidence``, ... or
        ``render_citations`` for the final rendering).
    arguments : dict
        The arguments as given.
    result_ids : tuple of str
        The evidence (and entity) ids the result names.
    seconds : float
        Wall time of the call.
    error : str or None
        Why the call failed, if it did.
    note : str or None
        Why the agent made the call, or what it concluded.
    """

    number: int
    tool: str
    arguments: dict[str, Any]
    result_ids: tuple[str, ...] = ()
    seconds: float = 0.0
    error: str | None = None
    note: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        data: dict[str, Any] = to_data(self)
        return data


@dataclass(frozen=True)
class AgentAnswer:
    """An answer whose every citation was fetched in its session, with its steps.

    Attributes
    ----------
    question : str
        What was asked.
    text : str
        The answer with numbered references ``[1]`` and a Sources list.
    body : str
        The answer with numbered references, without the Sources list.
    raw : str
        The answer with the evidence ids themselves (what was checked).
    references : tuple of Reference
        The numbered sources.
    checks : tuple of CitationCheck
        The final check of every citation in ``raw`` (all valid).
    steps : tuple of Step
        Every tool call, in order.
    notes : tuple of str
        What the agent changed and why (dropped claims, retries, limits).
    policy : str
        ``extractive`` (offline) or ``llm:MODEL``.
    seconds : float
        Wall time of the whole run.
    """

    question: str
    text: str
    body: str
    raw: str
    references: tuple[Reference, ...]
    checks: tuple[CitationCheck, ...]
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    policy: str = "extractive"
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text

    @property
    def cited_ids(self) -> tuple[str, ...]:
        """The evidence ids cited, in order of first appearance."""
        return tuple(r.id for r in self.references)

    @property
    def all_valid(self) -> bool:
        """Whether the answer cites something and every citation passes check_citations.

        An answer that cites nothing is not valid (as in ``check_citations``).
        """
        return bool(self.checks) and all(c.valid for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        data: dict[str, Any] = to_data(self)
        return data

    def step_rows(self) -> list[dict[str, Any]]:
        """One row per step: number, tool, arguments (JSON), result ids, seconds, error, note."""
        import json

        return [
            {
                "step": s.number,
                "tool": s.tool,
                "arguments": json.dumps(s.arguments, ensure_ascii=False),
                "result_ids": list(s.result_ids),
                "results": len(s.result_ids),
                "seconds": round(s.seconds, 4),
                "error": s.error,
                "note": s.note,
            }
            for s in self.steps
        ]

    def steps_frame(self) -> pl.DataFrame:
        """The steps as a polars DataFrame."""
        import polars as pl

        rows = self.step_rows()
        schema: dict[str, Any] = {
            "step": pl.Int64, "tool": pl.Utf8, "arguments": pl.Utf8, "result_ids": pl.List(pl.Utf8),
            "results": pl.Int64, "seconds": pl.Float64, "error": pl.Utf8, "note": pl.Utf8,
        }
        return pl.DataFrame(rows, schema=schema)

    def format_steps(self) -> str:
        """The steps as plain text, one line each."""
        lines = []
        for s in self.steps:
            ids = ", ".join(s.result_ids[:4]) + (" ..." if len(s.result_ids) > 4 else "")
            status = f"ERROR {s.error}" if s.error else f"{len(s.result_ids)} id(s) {ids}".rstrip()
            lines.append(f"{s.number:>2}. {s.tool}({_short_args(s.arguments)}) {s.seconds * 1000:.0f} ms: {status}")
            if s.note:
                lines.append(f"    {s.note}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        body = esc(self.body).replace("\n", "<br>")
        sources = "".join(f"<li>{esc(r.line()[len(f'[{r.number}] '):])}</li>" for r in self.references)
        notes = "".join(f"<li>{esc(n)}</li>" for n in self.notes)
        rows = "".join(
            "<tr>"
            f"<td>{s.number}</td><td><code>{esc(s.tool)}</code></td>"
            f"<td><code>{esc(_short_args(s.arguments, 120))}</code></td>"
            f"<td>{esc(', '.join(s.result_ids[:6]))}{' ...' if len(s.result_ids) > 6 else ''}</td>"
            f"<td style='text-align:right'>{s.seconds * 1000:.0f} ms</td>"
            f"<td>{esc(s.error or s.note or '')}</td>"
            "</tr>"
            for s in self.steps
        )
        return (
            "<div class='agrag-agent-answer'>"
            f"<p><b>Q:</b> {esc(self.question)}</p>"
            f"<p>{body}</p>"
            + (f"<p><b>Sources</b></p><ol>{sources}</ol>" if sources else "")
            + (f"<p><b>Notes</b></p><ul>{notes}</ul>" if notes else "")
            + f"<details><summary>{len(self.steps)} steps, {self.seconds:.2f} s ({esc(self.policy)})</summary>"
            "<table><thead><tr><th>#</th><th>tool</th><th>arguments</th><th>result ids</th>"
            f"<th>time</th><th>error / note</th></tr></thead><tbody>{rows}</tbody></table></details>"
            "</div>"
        )


def _short_args(arguments: dict[str, Any], width: int = 70) -> str:
    parts = []
    for key, value in arguments.items():
        shown = repr(value)
        parts.append(f"{key}={shown if len(shown) <= 40 else shown[:37] + '...'}")
    text = ", ".join(parts)
    return text if len(text) <= width else text[: width - 3] + "..."
