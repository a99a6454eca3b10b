"""A citation must support its claim: a fetched passage cited for an unrelated or contradicted claim is invalid,
with a verdict (supported, weak, unsupported) and the reason; measured on claims written by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from evidence_support import Universe

from agrag_lab import Graph
from agrag_lab.evidence.cited_claims import cited_claims
from agrag_lab.evidence.support import judge_support

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.citation_support import load_claims, measure, passage_of

MARLEY = "Marley was dead: to begin with. The register of his burial was signed by the clergyman, the clerk and Scrooge."


@pytest.mark.parametrize(
    ("claim", "verdict", "said"),
    [
        ("Scrooge signed the register of Marley's burial.", "supported", "content words"),
        ("The moon is made of cheese.", "unsupported", "0 of 2 content words"),
        ("Marley was not dead.", "unsupported", "negates what the passage states"),
        ("Seven men signed the register.", "unsupported", "number Seven"),
        ("Fezziwig signed the register.", "unsupported", "name Fezziwig"),
        ("The clergyman buried Marley in the churchyard at dawn.", "weak", "read the passage again"),
    ],
)
def test_each_verdict_says_why(claim: str, verdict: str, said: str) -> None:
    support = judge_support(claim, MARLEY)
    assert (support.verdict, said in support.reason) == (verdict, True), support


def test_a_negation_later_in_the_sentence_about_something_else_does_not_reverse_the_claim() -> None:
    passage = ("In the Notes Lovelace explained how the Analytical Engine differed from the Difference Engine, and "
               "argued that it could not only do arithmetic: the Analytical Engine might act upon other things.")
    assert judge_support("In the Notes Lovelace explained how the Analytical Engine differed", passage).verdict == "supported"
    assert judge_support("Lovelace never explained how the Analytical Engine differed", passage).verdict == "unsupported"


@pytest.mark.parametrize("pointer", ["See also and.", "Cf.", "See"])
def test_a_cross_reference_claims_nothing_so_it_is_never_unsupported(pointer: str) -> None:
    assert judge_support(pointer, MARLEY).verdict == "weak"
    assert judge_support("See the moon.", MARLEY).verdict == "unsupported"  # a claim after the pointer still counts


def test_a_number_written_as_a_word_matches_its_digits() -> None:
    assert judge_support("Seven Christmas Eves ago the chain was as long.", "as long as this 7 Christmas Eves ago").verdict == "supported"


def test_each_citation_gets_the_claim_it_stands_in() -> None:
    answer = "Marley was dead [a@0123456789ab#c0]. Scrooge signed it [b@0123456789ab#c1] as did the clerk. [c@0123456789ab#c2]"
    spans = [(answer.index(c), answer.index(c) + len(c)) for c in ("a@0123456789ab#c0", "b@0123456789ab#c1", "c@0123456789ab#c2")]
    assert cited_claims(answer, spans) == ["Marley was dead", "Scrooge signed it", "as did the clerk."]


def test_measured_on_hand_written_claims_every_number_name_and_unrelated_claim_is_caught() -> None:
    claims = load_claims()
    assert {c["corpus"] for c in claims} == {"carol", "workshop"} and sum(c["supported"] for c in claims) >= 40
    result = measure(claims)
    for kind in ("number", "unrelated", "wrong-passage"):
        assert set(result["verdicts_by_kind"][kind]) == {"unsupported"}, (kind, result["verdicts_by_kind"][kind])
    assert result["valid"]["recall"] >= 0.9  # a true claim is rarely refused
    assert result["valid"]["false_rejected"] >= 0.6 and result["supported"]["precision"] >= 0.75
    assert all(passage_of(c) for c in claims)


def test_check_citations_refuses_a_fetched_passage_cited_for_an_unrelated_claim(
    workshop_graph: Graph, universe: Universe,
) -> None:
    session = workshop_graph.evidence()
    note = f"note-g@{universe.current('note-g').version}#c0"
    session.fetch(note)
    cheese = session.check_citations(f"The moon is made of cheese [{note}].")
    (check,) = cheese.checks
    assert (check.valid, check.reason, check.support, check.claim) == (False, "unsupported", "unsupported", "The moon is made of cheese")
    assert "does not support the claim 'The moon is made of cheese'" in check.message and not cheese.all_valid
    true = session.check_citations(f"Note G is the last of the seven Notes that Ada Lovelace added to her translation [{note}].")
    assert (true.checks[0].valid, true.checks[0].reason, true.checks[0].support) == (True, "fetched", "supported")
    assert true.all_valid and true.checks[0].support_reason
    assert session.check_citations([note]).checks[0].support is None  # ids alone: no claim to compare
    rendered = session.render_citations(f"The moon is made of cheese [{note}]. Note G is the last of the seven Notes [{note}].")
    assert rendered.body == "The moon is made of cheese [?]. Note G is the last of the seven Notes [1]."


@pytest.mark.parametrize("raw", ["source:99", "chunk-deadbeef", "Entities:7", "doc-26cd456ffeb41ada"])
def test_an_id_in_a_builders_form_that_names_nothing_is_unknown_not_malformed(workshop_graph: Graph, raw: str) -> None:
    session = workshop_graph.evidence()
    (item,) = session.fetch(raw).items
    assert (item.ok, item.reason) == (False, "unknown") and "has no '@'" not in item.message
    check = session.check_citations([raw]).checks[0]
    assert check.reason == "unknown" and "has no '@'" not in check.message


def test_text_in_no_id_form_is_still_malformed(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence()
    for raw in ("hello", "note-g#c1", "moon:cheese"):
        assert session.fetch(raw).items[0].reason == "malformed"
        assert session.check_citations([raw]).checks[0].reason == "malformed"
