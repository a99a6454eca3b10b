"""``CitationChecker``: paste an answer with evidence ids, see which citations hold.

:class:`CitationModel` asks an :class:`~agrag_lab.evidence.session.EvidenceSession`
to check every citation of an answer (valid only if the session fetched it,
in scope) and to render the answer with numbered references and a Sources
list. Selecting a valid citation shows its fetched text; an invalid one
shows why, and is fetched only when you ask (:meth:`CitationModel.fetch`),
because fetching is what makes a citation valid.

Examples
--------
::

    session = graph.evidence()
    hit = session.discover("Note G", mode="keyword").hits[0]
    session.fetch([hit.id])
    checker = CitationChecker(session, answer=f"Lovelace wrote Note G [{hit.id}].")
    checker.model.report.all_valid       # True
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w
import traitlets

from agrag_lab.errors import NotFoundError
from agrag_lab.widgets._text import Passage, passages_html, read_passages
from agrag_lab.widgets.table import TableView, column

Row = dict[str, Any]


class CitationModel:
    """The checks and the rendering of one answer in one evidence session (pure Python).

    Parameters
    ----------
    session : EvidenceSession
        Its scope and the ids it fetched decide validity.
    answer : str
        The answer text, with evidence ids in it.
    """

    def __init__(self, session: Any, answer: str = "") -> None:
        self.session = session
        self.answer = answer
        self.report: Any = None
        self.rendered: Any = None
        self.check(answer)

    def check(self, answer: str) -> list[Row]:
        """Check and render ``answer``; return one row per citation, in order of appearance."""
        self.answer = answer
        self.report = self.session.check_citations(answer)
        self.rendered = self.session.render_citations(answer)
        return self.rows()

    def rows(self) -> list[Row]:
        """One row per citation: the id, valid or not, the reason and its message, its number."""
        numbers = {ref.id: ref.number for ref in self.rendered.references}
        rows: list[Row] = []
        seen: dict[str, int] = {}
        for check in self.report.checks:
            count = seen.get(check.citation, 0)
            seen[check.citation] = count + 1
            key = check.citation if count == 0 else f"{check.citation} ({count + 1})"
            rows.append({
                "_key": key, "_tone": "valid" if check.valid else "invalid", "citation": check.citation,
                "status": "valid" if check.valid else "invalid", "reason": check.reason,
                "number": numbers.get(check.id) if check.id else None, "message": check.message,
            })
        return rows

    def _check_of(self, key: str) -> Any:
        citation = key.rsplit(" (", 1)[0] if key.endswith(")") and " (" in key else key
        for check in self.report.checks:
            if check.citation == citation:
                return check
        raise NotFoundError(f"{key!r} is not a citation of this answer; it cites {[c.citation for c in self.report.checks]}")

    def text(self, key: str) -> list[Passage]:
        """The fetched text of a valid citation; an invalid one gives a passage saying why."""
        check = self._check_of(key)
        if not check.valid or check.id is None:
            return [Passage(check.citation, "", "", f"{check.reason}: {check.message}", ok=False)]
        return read_passages(self.session, [check.id])

    def fetch(self, key: str) -> list[Row]:
        """Fetch an invalid citation's id on purpose (so it can be cited), then check again."""
        check = self._check_of(key)
        self.session.fetch([check.id or check.citation])
        return self.check(self.answer)

    @property
    def counts(self) -> tuple[int, int]:
        """``(valid, invalid)`` citations."""
        return len(self.report.valid), len(self.report.invalid)


class CitationChecker(w.VBox):  # type: ignore[misc]
    """Paste an answer with evidence ids; each citation is shown valid or invalid and why.

    Parameters
    ----------
    session : EvidenceSession
        The session whose fetched ids (and scope) decide validity.
    answer : str
        Initial answer text.

    Traits
    ------
    answer : str
        The answer text (the text box); every change is checked.
    selected : str
        The selected citation (a click in the table sets it).
    valid_count, invalid_count : int
        How many citations are valid and invalid.
    """

    answer = traitlets.Unicode("")
    selected = traitlets.Unicode("")
    valid_count = traitlets.Int(0)
    invalid_count = traitlets.Int(0)

    def __init__(self, session: Any, answer: str = "") -> None:
        self.model = CitationModel(session, answer)
        self.text_box = w.Textarea(value=answer, placeholder="paste an answer with evidence ids, e.g. "
                                   "'Lovelace wrote Note G [note-g@0123456789ab#c1].'",
                                   continuous_update=False, layout=w.Layout(width="100%", height="8em"))
        self.summary = w.HTML()
        self.table = TableView(
            name="citations", caption="citations in order of appearance",
            columns=[column("citation", "citation"), column("status", "status"), column("reason", "reason"),
                     column("number", "[n]", "int"), column("message", "why")],
            empty_text="(no evidence ids found in the answer)", max_height="14em")
        self.rendered = w.HTML()
        self.passage = w.HTML("<i>select a citation to see its text</i>")
        self.fetch_button = w.Button(description="fetch this id", icon="download", disabled=True,
                                     tooltip="fetch the selected citation's text in this session (then it is valid)")
        self.fetch_button.on_click(lambda _: self.fetch_selected())
        super().__init__(children=[
            w.HTML("<b>Citation checker</b> — a citation is valid only if this session fetched it, in scope"),
            self.text_box, self.summary, self.table, w.HBox([self.fetch_button]), self.passage,
            w.HTML("<b>rendered answer</b>"), self.rendered,
        ])
        self.add_class("agrag-citation-checker")
        traitlets.link((self.text_box, "value"), (self, "answer"))
        self.table.observe(lambda c: setattr(self, "selected", c["new"]), names="selected")
        self.observe(self._on_answer, names="answer")
        self.observe(self._on_selected, names="selected")
        self.answer = answer
        self._show()

    def _on_answer(self, change: dict[str, Any]) -> None:
        self.model.check(change["new"])
        self._show()

    def _on_selected(self, change: dict[str, Any]) -> None:
        key = change["new"]
        if self.table.selected != key:
            self.table.selected = key
        if not key:
            self.passage.value = ""
            self.fetch_button.disabled = True
            return
        check = self.model._check_of(key)
        self.fetch_button.disabled = check.valid or check.reason == "malformed"
        self.passage.value = passages_html(self.model.text(key))

    def fetch_selected(self) -> None:
        """Fetch the selected (invalid) citation in the session, then check the answer again."""
        if not self.selected:
            return
        key = self.selected
        self.model.fetch(key)
        self._show()
        self._on_selected({"new": key})

    def _show(self) -> None:
        self.table.set_rows(self.model.rows())
        valid, invalid = self.model.counts
        self.valid_count, self.invalid_count = valid, invalid
        colour = "#009E73" if invalid == 0 else "#D55E00"
        self.summary.value = (
            f"<span class='agrag-citation-summary' style='color:{colour}'>{valid} valid, {invalid} invalid "
            f"citation(s)</span>"
        )
        body = html.escape(self.model.rendered.text)
        self.rendered.value = f"<div class='agrag-rendered' style='white-space:pre-wrap'>{body}</div>"
