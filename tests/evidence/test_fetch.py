"""fetch: exact text, spans and partial spans, current vs superseded, error entries, no leaks."""

from __future__ import annotations

import json

from evidence_support import AE, Universe

from agrag_lab import Graph
from agrag_lab.evidence import FetchedText, FetchError, Scope
from agrag_lab.evidence.access import unknown_id_message


def _ok(item: FetchedText | FetchError) -> FetchedText:
    assert isinstance(item, FetchedText), item
    return item


def _err(item: FetchedText | FetchError) -> FetchError:
    assert isinstance(item, FetchError), item
    return item


def test_chunk_and_span_ids_return_the_exact_stored_text(workshop_graph: Graph, universe: Universe) -> None:
    v = universe.current("note-g")
    chunk = universe.chunks[("note-g", v.version)][2]
    got = workshop_graph.evidence().fetch([chunk.id, f"note-g@{v.version}#s10-60"])
    a, b = _ok(got[0]), _ok(got[1])
    assert a.text == chunk.text and a.location.chunk == 2 and a.location.heading_path == chunk.heading_path
    assert b.text == v.text[10:60] and b.requested == (10, 60) and b.status == "ok"
    assert a.version_status == b.version_status == "current" and not a.removed
    json.dumps(got.to_dict())


def test_a_span_past_the_end_is_partial(workshop_graph: Graph, universe: Universe) -> None:
    v = universe.current("lord-byron")
    n = len(v.text)
    session = workshop_graph.evidence()
    part = _ok(session.fetch(f"lord-byron@{v.version}#s{n - 30}-{n + 500}")[0])
    assert part.status == "partial" and part.text == v.text[n - 30 :] and part.location.end == n
    assert part.requested == (n - 30, n + 500)
    beyond = _err(session.fetch(f"lord-byron@{v.version}#s{n + 1}-{n + 9}")[0])
    assert beyond.reason == "out_of_range" and str(n) in beyond.message
    empty = _ok(session.fetch(f"lord-byron@{v.version}#s{n}-{n}")[0])
    assert empty.text == "" and empty.status == "ok"


def test_an_old_version_id_still_fetches_marked_superseded(workshop_graph: Graph, universe: Universe) -> None:
    old, new = universe.old(AE), universe.current(AE)
    old_chunk = universe.chunks[(AE, old.version)][1]
    session = workshop_graph.evidence()
    got = session.fetch([old_chunk.id, f"{AE}@{old.version}#s0-200", universe.chunks[(AE, new.version)][1].id])
    first, span, current = _ok(got[0]), _ok(got[1]), _ok(got[2])
    assert first.text == old_chunk.text and first.version_status == "superseded"
    assert span.text == old.text[:200] and span.version_status == "superseded"
    assert current.version_status == "current" and current.text != first.text


def test_a_tampered_hash_never_returns_another_versions_text(workshop_graph: Graph, universe: Universe) -> None:
    old, new = universe.old(AE), universe.current(AE)
    flipped = new.version[:-1] + ("0" if new.version[-1] != "0" else "1")
    tampered = [
        f"{AE}@{flipped}#c1",
        f"{AE}@{new.version[:8]}#c1",  # a shorter prefix is not looked up by prefix
        f"{AE}@{new.version}0000#c1",
        f"{AE}@{old.version[:6]}{new.version[6:]}#s0-100",
        f"{AE}@{'f' * 12}#c0",
    ]
    got = workshop_graph.evidence().fetch(tampered)
    assert [_err(i).reason for i in got.items] == ["unknown"] * len(tampered)
    assert [_err(i).message for i in got.items] == [unknown_id_message(t) for t in tampered]


def test_bad_ids_give_error_entries_not_an_exception(workshop_graph: Graph, universe: Universe) -> None:
    good = universe.chunks[("timeline", universe.current("timeline").version)][0].id
    batch = ["not an id", good, "timeline@XYZ#c0", 42, "nope@0123456789ab#c0", good.replace("#c0", "#c999")]
    got = workshop_graph.evidence().fetch(batch)  # type: ignore[arg-type]
    assert [i.status for i in got.items] == ["error", "ok", "error", "error", "error", "error"]
    reasons = [i.reason for i in got.errors]
    assert reasons == ["malformed", "malformed", "malformed", "unknown", "unknown"]
    assert "has no '@'" in got.errors[0].message and got.errors[2].id == "42"


def test_out_of_scope_reads_exactly_like_unknown(workshop_graph: Graph, universe: Universe) -> None:
    v = universe.current("ada-lovelace")
    real = f"ada-lovelace@{v.version}#c0"
    fake = f"ada-lovelacf@{v.version}#c0"  # no such document
    session = workshop_graph.evidence(Scope(document_ids=frozenset({"note-g"})))
    a, b = session.fetch([real, fake]).items
    assert a.to_dict() == {**b.to_dict(), "id": real, "message": unknown_id_message(real)}
    assert _err(a).message.replace(real, fake) == _err(b).message
    assert session.fetched == ()


def test_the_session_remembers_what_it_fetched(workshop_graph: Graph, universe: Universe) -> None:
    v = universe.current("note-g")
    session = workshop_graph.evidence()
    session.fetch([f"note-g@{v.version}#c000", "bad", f"note-g@{v.version}#s0-10"])
    session.fetch(f"note-g@{v.version}#c0")
    assert session.fetched == (f"note-g@{v.version}#c0", f"note-g@{v.version}#s0-10")
