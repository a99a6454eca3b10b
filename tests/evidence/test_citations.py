"""check_citations and render_citations: valid only if fetched in scope; numbered Sources."""

from __future__ import annotations

import json

from evidence_support import AE, Universe

from agrag_lab import Graph
from agrag_lab.evidence import Scope
from agrag_lab.evidence.access import unknown_id_message
from agrag_lab.evidence.citations import find_citations


def _ids(universe: Universe) -> dict[str, str]:
    note = universe.current("note-g").version
    return {
        "note0": f"note-g@{note}#c0",
        "note1": f"note-g@{note}#c1",
        "span": f"note-g@{note}#s0-40",
        "old": universe.chunks[(AE, universe.old(AE).version)][1].id,
        "byron": f"lord-byron@{universe.current('lord-byron').version}#c0",
    }


def test_reasons_for_each_citation(workshop_graph: Graph, universe: Universe) -> None:
    ids = _ids(universe)
    session = workshop_graph.evidence()
    session.fetch([ids["note0"], ids["old"]])
    report = session.check_citations(
        [
            ids["note0"],
            ids["old"],
            ids["note1"],
            "note-g#c0",
            f"note-g@{'0' * 12}#c0",
            ids["note0"].replace("#c0", "#c00"),
        ]
    )
    assert [(c.valid, c.reason) for c in report.checks] == [
        (True, "fetched"),
        (True, "fetched"),
        (False, "not_fetched"),
        (False, "malformed"),
        (False, "unknown"),
        (True, "fetched"),  # the same id, written with a leading zero
    ]
    assert not report.all_valid and len(report.valid) == 3 and len(report.invalid) == 3
    assert "fetch it" in report.checks[2].message
    json.dumps(report.to_dict())


def test_citations_in_an_answer_text(workshop_graph: Graph, universe: Universe) -> None:
    ids = _ids(universe)
    session = workshop_graph.evidence()
    session.fetch([ids["note0"]])
    answer = f"Note G computes Bernoulli numbers [{ids['note0']}]. Also ({ids['note1']}); typo [note-g@zz#c1] and x@y."
    report = session.check_citations(answer)
    assert [c.citation for c in report.checks] == [ids["note0"], ids["note1"], "note-g@zz#c1"]
    assert [c.reason for c in report.checks] == ["fetched", "not_fetched", "malformed"]
    assert [c for c, _, _ in find_citations("mail ada@example.org, see x@0123456789ab#c1.")] == ["x@0123456789ab#c1"]


def test_a_citation_is_valid_only_in_the_session_that_fetched_it(workshop_graph: Graph, universe: Universe) -> None:
    ids = _ids(universe)
    reader = workshop_graph.evidence()
    reader.fetch(ids["note0"])
    other = workshop_graph.evidence()
    assert other.check_citations([ids["note0"]]).checks[0].reason == "not_fetched"
    assert reader.check_citations([ids["note0"]]).checks[0].valid


def test_out_of_scope_never_confirms_existence(workshop_graph: Graph, universe: Universe) -> None:
    ids = _ids(universe)
    real, fake = ids["byron"], ids["byron"].replace("lord-byron", "lord-byrom")
    listed = workshop_graph.evidence(Scope(document_ids=frozenset({"note-g"})))
    a, b = listed.check_citations([real, fake]).checks
    assert a.reason == b.reason == "out_of_scope" and a.message.replace("lord-byron", "lord-byrom") == b.message
    predicate = workshop_graph.evidence(Scope(where={"era": "victorian"}))  # no workshop document has metadata
    a, b = predicate.check_citations([real, fake]).checks
    assert (a.reason, b.reason) == ("unknown", "unknown")
    assert (a.message, b.message) == (unknown_id_message(real), unknown_id_message(fake))
    # listed but not readable (here: listed, yet the predicate rules it out) is unknown, not not_fetched
    both = workshop_graph.evidence(Scope(document_ids=frozenset({"lord-byron"}), where={"era": "victorian"}))
    assert both.check_citations([real]).checks[0].reason == "unknown"


def test_render_numbers_valid_ids_and_lists_sources(workshop_graph: Graph, universe: Universe) -> None:
    ids = _ids(universe)
    session = workshop_graph.evidence()
    session.fetch([ids["note0"], ids["span"], ids["old"]])
    answer = (
        f"Lovelace wrote Note G [{ids['note0']}]. Babbage's engine design came before Note G [{ids['old']}, {ids['span']}]. "
        f"Again {ids['note0']}. Unread [{ids['note1']}]."
    )
    rendered = session.render_citations(answer)
    assert rendered.body == ("Lovelace wrote Note G [1]. Babbage's engine design came before Note G [2, 3]. Again [1]. Unread [?].")
    assert [r.id for r in rendered.references] == [ids["note0"], ids["old"], ids["span"]]
    lines = rendered.text.split("\n\nSources\n")[1].strip().splitlines()
    assert lines[0].startswith("[1] Note G") and f"version {universe.current('note-g').version}" in lines[0]
    assert "(superseded)" in lines[1] and "The Analytical Engine" in lines[1] and "Origins" in lines[1]
    assert "(superseded)" not in lines[0] and lines[2].startswith("[3] Note G")
    assert [c.reason for c in rendered.invalid] == ["not_fetched"]
    assert str(rendered) == rendered.text
    assert session.render_citations("No citations here.").text == "No citations here."
    json.dumps(rendered.to_dict())


def test_an_answer_that_cites_nothing_is_not_valid(workshop_graph: Graph, universe: Universe) -> None:
    session = workshop_graph.evidence()
    for nothing in ("Ada Lovelace wrote Note G.", []):
        report = session.check_citations(nothing)
        assert report.checks == () and report.all_valid is False and report.reason == "no citation found"
        assert report.to_dict()["reason"] == "no citation found"


def test_a_bracketed_number_is_an_unresolved_look_alike_never_drawn_as_a_reference(
    workshop_graph: Graph, universe: Universe
) -> None:
    ids = _ids(universe)
    session = workshop_graph.evidence()
    session.fetch([ids["note0"]])
    answer = f"Ada Lovelace wrote Note G [1]. It computes Bernoulli numbers [{ids['note0']}]; see [the memoir](http://x)."
    report = session.check_citations(answer)
    assert [(c.citation, c.reason) for c in report.checks] == [("[1]", "unresolved"), (ids["note0"], "fetched")]
    assert report.all_valid is False and len(report.unresolved) == 1 and report.checks[0].id is None
    assert "unresolved" in (report.reason or "")
    rendered = session.render_citations(answer)
    # the look-alike is [?]; the one real, fetched id is [1] and the only Source
    assert rendered.body == "Ada Lovelace wrote Note G [?]. It computes Bernoulli numbers [1]; see [the memoir](http://x)."
    assert [r.id for r in rendered.references] == [ids["note0"]]
    assert [c.reason for c in rendered.checks] == ["unresolved", "fetched"]
    # the same answer without the look-alike is valid
    assert session.check_citations(answer.replace(" [1]", "")).all_valid
