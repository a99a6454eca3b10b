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

from agrag_lab.errors import NotFoundError, ViewArgumentError
from agrag_lab.evidence.citations import recognise_citations
from agrag_lab.evidence.results import CitationCheck
from agrag_lab.evidence.session import EvidenceSession
from agrag_lab.widgets._text import Passage, passages_html, read_passages
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.text_box import PausedTextarea
from agrag_lab.widgets.theme import themed

Row = dict[str, Any]
#: The reason of bracketed text that holds no evidence id (a look-alike: see :mod:`agrag_lab.evidence.citations`).
UNRESOLVED = "unresolved"
NOT_AN_ID = UNRESOLVED  # the name of older releases
#: The pause in typing after which the answer is checked (milliseconds).
CHECK_PAUSE_MS = 300


def bracketed_non_ids(answer: str) -> list[tuple[str, int]]:
    """``(text, position)`` of every ``[...]`` in ``answer`` that holds no evidence id.

    An answer that cites ``[1]``, ``[Babbage 1864]`` or ``[source]`` looks
    cited but names nothing that can be checked: ``check_citations`` lists it
    as ``unresolved`` (and the answer is not valid).

    Examples
    --------
    >>> bracketed_non_ids("Ada wrote Note G [1] [ada@0123456789ab#c1], see [the memoir](http://x).")
    [('[1]', 17)]
    """
    return [(f.citation, f.start) for f in recognise_citations(answer) if f.kind == "look_alike"]


class CitationModel:
    """The checks and the rendering of one answer in one evidence session (pure Python).

    Parameters
    ----------
    session : EvidenceSession
        Its scope and the ids it fetched decide validity.
    answer : str
        The answer text, with evidence ids in it.
    """

    def __init__(self, session: EvidenceSession, answer: str = "") -> None:
        if not isinstance(session, EvidenceSession):
            raise ViewArgumentError(
                f"the citation checker needs an evidence session (graph.evidence(), or graph.evidence(scope)), "
                f"not {type(session).__name__}"
            )
        self.session = session
        self.answer = answer
        self.report = session.check_citations(answer)
        self.rendered = session.render_citations(answer)

    def check(self, answer: str) -> list[Row]:
        """Check and render ``answer``; return one row per citation, in order of appearance."""
        self.answer = answer
        self.report = self.session.check_citations(answer)
        self.rendered = self.session.render_citations(answer)
        return self.rows()

    def rows(self) -> list[Row]:
        """One row per citation, in order of appearance: the id, valid or not, the reason and its message, its number.

        Bracketed text that holds no evidence id (``[1]``, ``[Babbage 1864]``)
        is a row too: the report lists it, reason ``unresolved``, status ``not an id``.
        """
        numbers = {ref.id: ref.number for ref in self.rendered.references}
        rows: list[Row] = []
        seen: dict[str, int] = {}
        for check in self.report.checks:
            count = seen.get(check.citation, 0)
            seen[check.citation] = count + 1
            key = check.citation if count == 0 else f"{check.citation} ({count + 1})"
            status = "valid" if check.valid else "not an id" if check.reason == UNRESOLVED else "invalid"
            rows.append({
                "_key": key, "_tone": "valid" if check.valid else "invalid", "citation": check.citation,
                "status": status, "reason": check.reason,
                "number": numbers.get(check.id) if check.id else None, "message": check.message,
            })
        return rows

    def can_fetch(self, key: str) -> bool:
        """Whether fetching ``key`` could make it valid: the id exists, in scope, and was not fetched."""
        check = self._check_of(key)
        return check is not None and check.reason == "not_fetched"

    def _check_of(self, key: str) -> CitationCheck | None:
        """The check of a citation row (None for bracketed text that is not an id)."""
        citation = key.rsplit(" (", 1)[0] if key.endswith(")") and " (" in key else key
        for check in self.report.checks:
            if check.citation == citation:
                return None if check.reason == UNRESOLVED else check
        raise NotFoundError(f"{key!r} is not a citation of this answer; it cites {[c.citation for c in self.report.checks]}")

    def text(self, key: str) -> list[Passage]:
        """The fetched text of a valid citation; an invalid one gives a passage saying why."""
        check = self._check_of(key)
        if check is None:
            return [Passage(key, "", "", "not an evidence id: nothing to check or fetch", ok=False)]
        if not check.valid or check.id is None:
            return [Passage(check.citation, "", "", f"{check.reason}: {check.message}", ok=False)]
        return read_passages(self.session, [check.id])

    def fetch(self, key: str) -> list[Row]:
        """Fetch a citation that exists but was not fetched (so it can be cited), then check again.

        Raises
        ------
        ViewArgumentError
            The citation is valid already, malformed, not an id, or names
            nothing this session can read: fetching would not make it valid.
        """
        if not self.can_fetch(key):
            raise ViewArgumentError(
                f"{key!r} cannot be made valid by fetching it: only an id that exists in this session's scope "
                "and was not fetched yet can; fix or remove the citation"
            )
        check = self._check_of(key)
        if check is not None:  # can_fetch found it
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
    checks : int
        How many times the answer was checked (once per pause in typing).
    """

    answer = traitlets.Unicode("")
    selected = traitlets.Unicode("")
    valid_count = traitlets.Int(0)
    invalid_count = traitlets.Int(0)
    checks = traitlets.Int(0)

    def __init__(self, session: EvidenceSession, answer: str = "") -> None:
        self.model = CitationModel(session, answer)
        # checked as you type or paste: once the typing pauses (not one check per key), or when the box loses focus
        self.text_box = PausedTextarea(value=answer, placeholder="paste an answer with evidence ids, e.g. "
                                       "'Lovelace wrote Note G [note-g@0123456789ab#c1].'", wait_ms=CHECK_PAUSE_MS)
        self.summary = w.HTML()
        self.table = TableView(
            name="citations", caption="citations in order of appearance",
            columns=[column("citation", "citation"), column("status", "status"), column("reason", "reason"),
                     column("number", "[n]", "int"), column("message", "why", wrap=True)],
            # tall enough for a few wrapped "why" messages whole (14em cut the fourth row of notebook 05)
            empty_text="(no evidence ids found in the answer)", max_height="28em")
        self.rendered = w.HTML()
        self.passage = w.HTML("<i>select a citation to see its text</i>")
        self.fetch_button = w.Button(description="fetch this id", icon="download", disabled=True,
                                     tooltip="fetch the selected citation's text in this session (then it is valid); "
                                             "only for an id that exists and was not fetched")
        self.fetch_button.on_click(lambda _: self.fetch_selected())
        # the table is short (one row per citation) and its "why" column is shown whole: the detail goes under it
        detail = w.VBox([w.HBox([self.fetch_button]), self.passage],
                        layout=w.Layout(max_height="20em", overflow="auto"))
        detail.add_class("agrag-detail")
        super().__init__(children=[
            w.HTML("<b>Citation checker</b> <span class='agrag-help'>a citation is valid only if this session "
                   "fetched it, in scope; checked as you type</span>"),
            self.text_box, self.summary, self.table, detail,
            w.HTML("<b>rendered answer</b>"), self.rendered,
        ])
        themed(self, "agrag-citation-checker")
        traitlets.link((self.text_box, "value"), (self, "answer"))
        self.table.observe(lambda c: setattr(self, "selected", c["new"]), names="selected")
        self.observe(self._on_answer, names="answer")
        self.observe(self._on_selected, names="selected")
        self.answer = answer
        self._show()

    def _on_answer(self, change: dict[str, Any]) -> None:
        self.model.check(change["new"])
        self.checks += 1
        self._show()

    def _on_selected(self, change: dict[str, Any]) -> None:
        key = change["new"]
        if self.table.selected != key:
            self.table.selected = key
        if not key:
            self.passage.value = ""
            self.fetch_button.disabled = True
            return
        self.fetch_button.disabled = not self.model.can_fetch(key)
        self.passage.value = passages_html(self.model.text(key))

    def fetch_selected(self) -> None:
        """Fetch the selected citation in the session (if that can make it valid), then check the answer again."""
        if not self.selected or not self.model.can_fetch(self.selected):
            return
        key = self.selected
        self.model.fetch(key)
        self._show()
        self._on_selected({"new": key})

    def _show(self) -> None:
        self.table.set_rows(self.model.rows())
        valid, invalid = self.model.counts
        loose = len(self.model.report.unresolved)
        self.valid_count, self.invalid_count = valid, invalid - loose
        tone = "agrag-good" if self.model.report.all_valid else "agrag-bad"
        none = " &mdash; no citation found: an answer that cites nothing is not valid" if not self.model.report.checks else ""
        self.summary.value = (
            f"<span class='agrag-citation-summary {tone}' data-checks='{self.checks}'>{valid} valid, "
            f"{invalid - loose} invalid citation(s)"
            + (f", {loose} bracketed text(s) that are not ids (unresolved)" if loose else "") + none + "</span>"
        )
        body = html.escape(self.model.rendered.text)
        self.rendered.value = f"<div class='agrag-rendered' style='white-space:pre-wrap'>{body}</div>"
