"""An imported LLM graph is searched by what its builder wrote: descriptions, not the mean of a few long text units."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.index.records import DESCRIBED_BY, builder_text, content_hash, graph_records
from agrag_lab.recipes import BUILTINS
from agrag_lab.retrieval.trace import tied

DOCUMENT = (
    "The lighthouse on Skerry Point had been dark for ten years when the restoration began. "
    "Maria Okafor, who had run harbour works in Lagos, took charge of the crew and set the order of the work. "
    "Tomas Berg, the electrician, rewired the great lamp and tested the clockwork that turns it.\n\n"
    "Ines Alvarez kept the books: every invoice for glass and brass passed across her desk. "
    "Hugo Laine, a painter from Turku, gave the tower its red and white bands. "
    "On the first night the light turned again, the fishing boats sounded their horns."
)
#: name, type, description (as GraphRAG's LLM writes them)
ENTITIES = [
    ("MARIA OKAFOR", "PERSON", "Maria Okafor leads the restoration team at Skerry Point; she is the crew's leader and "
                               "decides the order of the work."),
    ("TOMAS BERG", "PERSON", "Tomas Berg is the electrician who rewired the lighthouse lamp and its clockwork."),
    ("INES ALVAREZ", "PERSON", "Ines Alvarez is the accountant who keeps the project's books and pays the invoices."),
    ("HUGO LAINE", "PERSON", "Hugo Laine is a painter from Turku who painted the tower's red and white bands."),
    ("SKERRY POINT", "GEO", "Skerry Point is the headland where the lighthouse stands."),
    ("FISHING BOATS", "ORGANIZATION", "The fishing boats of the harbour greeted the relit lighthouse with their horns."),
]
#: Entities whose description is empty: only their name, so their vector is their one text unit's.
NAMES_ONLY = [("TURKU", "GEO"), ("BRASS", "MATERIAL")]


def _write_team_output(folder: Path) -> None:
    """A GraphRAG 3.x output of two text units (the tables GraphRAG writes, with its columns)."""
    folder.mkdir(parents=True)
    cut = DOCUMENT.index("Ines")
    units = [DOCUMENT[:cut], DOCUMENT[cut:]]
    unit_ids = ["tu-a", "tu-b"]
    pl.DataFrame({"id": ["doc-1"], "human_readable_id": [0], "title": ["skerry.txt"], "text": [DOCUMENT]}).write_parquet(
        folder / "documents.parquet")
    pl.DataFrame({"id": unit_ids, "human_readable_id": [0, 1], "text": units, "document_id": ["doc-1", "doc-1"]}).write_parquet(
        folder / "text_units.parquet")
    every = [*ENTITIES, *((name, kind, "") for name, kind in NAMES_ONLY)]
    pl.DataFrame({
        "id": [f"e{n}" for n in range(len(every))], "human_readable_id": list(range(len(every))),
        "title": [e[0] for e in every], "type": [e[1] for e in every], "description": [e[2] for e in every],
        # every described entity on both units: their chunks' mean would be one vector for all
        "text_unit_ids": [unit_ids for _ in ENTITIES] + [["tu-b"] for _ in NAMES_ONLY],
    }).write_parquet(folder / "entities.parquet")
    pl.DataFrame({
        "id": ["r0", "r1"], "human_readable_id": [0, 1], "source": ["MARIA OKAFOR", "MARIA OKAFOR"],
        "target": ["TOMAS BERG", "INES ALVAREZ"], "description": ["Maria directs Tomas.", "Maria works with Ines."],
        "weight": [1.0, 1.0], "text_unit_ids": [["tu-a"], unit_ids],
    }).write_parquet(folder / "relationships.parquet")
    pl.DataFrame({
        "id": ["c0"], "human_readable_id": [0], "community": [0], "level": [0], "parent": [-1],
        "entity_ids": [[f"e{n}" for n in range(len(ENTITIES))]], "relationship_ids": [["r0", "r1"]],
        "text_unit_ids": [unit_ids],
    }).write_parquet(folder / "communities.parquet")
    pl.DataFrame({
        "id": ["cr0"], "human_readable_id": [0], "community": [0], "level": [0], "title": ["The Skerry Point crew"],
        "summary": ["The crew that relit the Skerry Point lighthouse."], "full_content": ["# The Skerry Point crew\n..."],
        "rank": [5.0], "findings": [[{"summary": "Okafor leads", "explanation": "She sets the order of the work."}]],
    }).write_parquet(folder / "community_reports.parquet")


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    root = tmp_path_factory.mktemp("team")
    _write_team_output(root / "output")
    with Graph.open(root / "index", embedder=embedder) as graph:
        graph.import_graphrag(root / "output")
    with Graph.open(root / "index", embedder=embedder, read_only=True) as graph:
        yield graph


def test_each_entity_embeds_its_own_description_as_graphrag_does(team: Graph) -> None:
    hashes = {c.id: h for c, h in team.db.current_chunks()}
    records = graph_records(team.graph_store, hashes)["entities"]
    entity = team.graph_store.entity_by_name("MARIA OKAFOR")
    assert entity is not None and dict(entity.attributes)[DESCRIBED_BY] == "graphrag"
    row = records.ids.index(entity.id)
    assert records.texts[row] == builder_text("graphrag", "MARIA OKAFOR", ENTITIES[0][2]) == f"MARIA OKAFOR:{ENTITIES[0][2]}"
    assert records.source_of(row) == ()  # embedded from its text, not the mean of its two chunks
    report = graph_records(team.graph_store, hashes)["communities"]
    assert report.source_of(0) == () and "Okafor leads" in report.texts[0]


def test_no_tie_across_entities_their_descriptions_tell_apart_and_the_leader_is_found(team: Graph) -> None:
    run = team.engine().run("Who leads the team?", BUILTINS["ENTITY"])
    dense = run.trace.method("entity").legs["dense"]
    described = {team.graph_store.entity_by_name(name).id for name, _, _ in ENTITIES}  # type: ignore[union-attr]
    assert described <= {h.key for h in dense}
    assert all(tied(dense, h.key) == 0 for h in dense if h.key in described), [(h.key, h.score) for h in dense]
    assert run.results[0].title == "MARIA OKAFOR"
    assert "tied" not in run.explain(0)


def test_ties_in_a_leg_are_shown_in_explain_and_the_ledger(team: Graph) -> None:
    # the two name-only entities share their one text unit's vector: a tie the ledger must not hide
    run = team.engine().run("Turku brass", BUILTINS["ENTITY"])
    dense = run.trace.method("entity").legs["dense"]
    ids = {team.graph_store.entity_by_name(name).id for name, _ in NAMES_ONLY}  # type: ignore[union-attr]
    assert all(tied(dense, key) == 1 for key in ids)
    at = next(i for i, r in enumerate(run.results) if r.id in ids)
    assert "tied with 1 other(s)" in run.explain(at)
    ledger = run.to_polars()
    assert set(ledger.filter(ledger["key"].is_in(list(ids)))["tied"].to_list()) == {1}


@pytest.mark.parametrize(("query", "name", "names_first"), [
    ("Who painted the red and white bands of the tower?", "HUGO LAINE", "Hugo Laine"),
    ("Who rewired the great lamp and its clockwork?", "TOMAS BERG", "Tomas Berg"),
])
def test_an_entity_hit_stands_first_for_its_passage_the_question_is_about(
    team: Graph, query: str, name: str, names_first: str
) -> None:
    # every described entity lists both text units, tu-a first: the stored order would put Hugo's tu-a first
    run = team.engine().run(query, BUILTINS["ENTITY"])
    hit = next(r for r in run.results if r.title == name)
    assert len(hit.passages()) == 2
    first = team.graph_store.item_info(hit.passages()[0])
    assert first is not None and names_first in first.text, [team.graph_store.item_info(c) for c in hit.passages()]


def test_an_imported_chunk_embeds_its_units_text_alone_and_keeps_the_title_for_keywords(team: Graph) -> None:
    """GraphRAG embeds a text unit's text alone: so does the chunk's vector (re-embedded here); the keyword
    index still reads the document title with the text, so a question naming the file finds its chunks."""
    cut = DOCUMENT.index("Ines")
    _, texts, _, hashes = team.chunk_records()
    assert texts == [DOCUMENT[:cut], DOCUMENT[cut:]]
    assert hashes == [content_hash(t) for t in texts]  # the cache keys the builder's text
    found = team._build.keyword_index("chunks").search("skerry.txt", 2)
    assert len(found) == 2  # neither unit's text says "skerry.txt": only the title does


def test_an_import_reopened_and_synced_embeds_nothing_again(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    _write_team_output(tmp_path / "output")
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        graph.import_graphrag(tmp_path / "output")
        before = graph.chunk_records()
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        graph.sync()
        assert graph.embedded_count == 0 and graph.chunk_records() == before
        again = graph.import_graphrag(tmp_path / "output")
        assert again.unchanged and again.embedded == 0


def test_an_index_imported_before_the_builders_text_opens_and_syncs_as_it_was(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import written before chunks carried ``builder_embeds`` (its documents say nothing of the builder's
    text) keeps its title+text chunk records: reopened and synced, it embeds nothing and still answers."""
    import agrag_lab.importing.graphrag as graphrag_import

    _write_team_output(tmp_path / "output")
    with monkeypatch.context() as patched:
        patched.setattr(graphrag_import, "builder_embeds", lambda embedded: {})  # the import as it was written before
        with Graph.open(tmp_path / "index", embedder=embedder) as graph:
            graph.import_graphrag(tmp_path / "output")
            before = graph.chunk_records()
    assert all(text.startswith("skerry.txt\n") for text in before[1])
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        graph.sync()
        assert graph.embedded_count == 0 and graph.chunk_records() == before
        run = graph.engine().run("Who painted the tower?", BUILTINS["CHUNK"])
        assert run.results and "Hugo Laine" in graph.chunk_info(run.results[0].id).text  # type: ignore[union-attr]
