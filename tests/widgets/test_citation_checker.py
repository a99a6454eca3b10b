"""CitationChecker: each citation valid or invalid with its reason, rendered answer, fetched text."""

from __future__ import annotations

from agrag_lab import Graph
from agrag_lab.widgets.citations import CHECK_PAUSE_MS, CitationChecker, CitationModel


def _answer(graph: Graph) -> tuple[object, str, str, str]:
    session = graph.evidence()
    hits = session.discover("Note G Bernoulli numbers", mode="keyword", limit=5)
    fetched, unread = hits.ids[0], hits.ids[1]
    session.fetch([fetched])
    answer = f"Lovelace wrote Note G [{fetched}]. See also {unread} and [bad@zz#c1]. Again [{fetched}]."
    return session, answer, fetched, unread


def test_each_citation_is_valid_or_invalid_with_its_reason(workshop_graph: Graph) -> None:
    session, answer, fetched, unread = _answer(workshop_graph)
    model = CitationModel(session, answer)
    rows = model.rows()
    assert [r["citation"] for r in rows] == [fetched, unread, "bad@zz#c1", fetched]
    assert [r["reason"] for r in rows] == ["fetched", "not_fetched", "malformed", "fetched"]
    assert [r["status"] for r in rows] == ["valid", "invalid", "invalid", "valid"]
    assert rows[0]["number"] == 1 and rows[3]["number"] == 1 and rows[1]["number"] is None
    assert len({r["_key"] for r in rows}) == 4  # a repeated citation still has its own row
    assert model.counts == (2, 2)
    assert "[1]" in model.rendered.body and "[?]" in model.rendered.body and "Sources" in model.rendered.text


def test_widget_checks_as_you_type_and_shows_the_text(workshop_graph: Graph) -> None:
    session, answer, fetched, _unread = _answer(workshop_graph)
    checker = CitationChecker(session)
    assert checker.table.rows == [] and checker.valid_count == 0
    checker.text_box.value = answer
    assert (checker.valid_count, checker.invalid_count) == (2, 2)
    assert [r["_tone"] for r in checker.table.rows] == ["valid", "invalid", "invalid", "valid"]
    assert "Sources" in checker.rendered.value and "[1]" in checker.rendered.value
    checker.table.selected = fetched
    text = session.fetch([fetched]).texts[0].text
    assert text.split()[0] in checker.passage.value and "fetched, version" in checker.passage.value
    assert checker.fetch_button.disabled
    checker.table.selected = "bad@zz#c1"
    assert "malformed" in checker.passage.value and checker.fetch_button.disabled


def test_fetching_an_unread_citation_on_purpose_makes_it_valid(workshop_graph: Graph) -> None:
    session, answer, _fetched, unread = _answer(workshop_graph)
    checker = CitationChecker(session, answer)
    checker.table.selected = unread
    assert "not_fetched" in checker.passage.value
    assert not checker.fetch_button.disabled
    checker.fetch_selected()
    assert (checker.valid_count, checker.invalid_count) == (3, 1)
    assert "fetched, version" in checker.passage.value
    assert next(r for r in checker.table.rows if r["citation"] == unread)["number"] == 2


def test_bracketed_text_that_is_not_an_id_is_reported_and_fetch_is_offered_only_for_ids_that_exist(
    workshop_graph: Graph,
) -> None:
    session, _answer_text, fetched, unread = _answer(workshop_graph)
    missing = "nobody@0123456789ab#c1"
    answer = f"Note G [1] was Lovelace's [{fetched}] — see [the memoir](http://example.org) and [{missing}] [{unread}]."
    checker = CitationChecker(session, answer)
    rows = checker.table.rows
    assert [r["citation"] for r in rows] == ["[1]", fetched, missing, unread]  # in order of appearance
    assert [r["reason"] for r in rows] == ["unresolved", "fetched", "unknown", "not_fetched"]
    assert "bracketed text" in checker.summary.value and "agrag-bad" in checker.summary.value
    # the box sends its text when the typing pauses (the browser test types and counts the checks)
    assert checker.text_box.wait_ms == CHECK_PAUSE_MS
    checks = checker.checks
    checker.text_box.value = answer + " More [x]."
    assert checker.checks == checks + 1 and [r["citation"] for r in checker.table.rows][-1] == "[x]"
    offered = {}
    for row in rows:
        checker.table.selected = row["_key"]
        offered[row["reason"]] = not checker.fetch_button.disabled
    assert offered == {"unresolved": False, "fetched": False, "unknown": False, "not_fetched": True}
    checker.table.selected = "[1]"
    assert "not an evidence id" in checker.passage.value
    why = next(c for c in checker.table.columns if c["key"] == "message")
    assert why["wrap"]  # the reason is shown whole
    import pytest

    from agrag_lab.errors import ViewArgumentError

    with pytest.raises(ViewArgumentError, match="cannot be made valid by fetching"):
        checker.model.fetch(missing)
