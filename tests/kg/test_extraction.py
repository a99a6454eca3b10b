from __future__ import annotations

from collections.abc import Sequence

import pytest

from agrag_lab.documents import Chunk
from agrag_lab.ids import version_hash
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract.extraction import (
    BatchExtractor,
    DocumentContext,
    EntityMention,
    Extraction,
    Extractor,
    RelationMention,
    RuleExtractor,
    with_given_facts,
)
from agrag_lab.kg.extract.pipeline import extract_batch


def chunk_of(text: str, index: int = 0, document_id: str = "doc") -> Chunk:
    return Chunk(document_id, version_hash(text), index, text, 0, len(text), "paragraph", 0, ())


def extract(
    text: str,
    title: str = "",
    metadata: dict[str, object] | None = None,
    index: int = 1,
) -> Extraction:
    return RuleExtractor().extract(chunk_of(text, index), DocumentContext("doc", title, metadata or {}))


def names(extraction: Extraction) -> list[str]:
    return [m.name for m in extraction.entities]


def triples(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(r.source, r.type, r.target) for r in extraction.relations}


@pytest.mark.parametrize(
    "name",
    [
        "Luigi Menabrea",
        "Joseph Marie Jacquard",
        "Analytical Engine",
        "Royal Astronomical Society",
        "Bibliothèque universelle de Genève",
        "Society for the Exploration of Psychotherapy Integration",
        "G. Stanley Hall",
        "St. Louis",
    ],
)
def test_multi_word_names_with_connectors(name: str) -> None:
    assert name in names(extract(f"In 1842 the work reached {name} at last."))


def test_sentence_initial_stopwords_and_common_words_are_stripped() -> None:
    found = names(extract("The Analytical Engine was new. However, Babbage kept working. Born in London, he left."))
    assert "Analytical Engine" in found and "Babbage" in found and "London" in found
    assert not {"The", "However", "Born", "The Analytical Engine"} & set(found)


def test_possessives_split_names() -> None:
    found = names(extract("Ada translated Menabrea's paper on Babbage's Analytical Engine."))
    assert {"Ada", "Menabrea", "Babbage", "Analytical Engine"} <= set(found)


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("She met Lord Byron in 1812.", "Lord Byron", "Person"),
        ("Babbage was born in London in 1791.", "London", "Place"),
        ("The Analytical Engine was never finished.", "Analytical Engine", "Machine"),
        (
            "It was shown to the Royal Astronomical Society in 1822.",
            "Royal Astronomical Society",
            "Organization",
        ),
        (
            'She wrote "Sketch of the Analytical Engine" in 1843.',
            "Sketch of the Analytical Engine",
            "Work",
        ),
        ("She wrote *Notes on the Engine* in 1843.", "Notes on the Engine", "Work"),
        ("It used the Jacquard loom for input.", "Jacquard loom", "Machine"),
        ("The psychologist Carl Rogers developed it.", "Carl Rogers", "Person"),
    ],
)
def test_labels_from_cues(text: str, name: str, label: str) -> None:
    found = {m.name: m.label for m in extract(text).entities}
    assert found.get(name) == label, found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Ada Lovelace worked with Charles Babbage.",
            ("Ada Lovelace", "WORKED_WITH", "Charles Babbage"),
        ),
        (
            "Ada Lovelace collaborated with Charles Babbage.",
            ("Ada Lovelace", "WORKED_WITH", "Charles Babbage"),
        ),
        (
            "Charles Babbage was born in London.",
            ("Charles Babbage", "BORN_IN", "London"),
        ),
        (
            "Luigi Menabrea wrote Sketch of the Engine.",
            ("Luigi Menabrea", "WROTE", "Sketch of the Engine"),
        ),
        ("The Notes were written by Ada Lovelace.", ("Ada Lovelace", "WROTE", "Notes")),
        (
            "Charles Babbage designed the Difference Engine.",
            ("Charles Babbage", "DESIGNED", "Difference Engine"),
        ),
        (
            "The Analytical Engine was designed by Charles Babbage.",
            ("Charles Babbage", "DESIGNED", "Analytical Engine"),
        ),
        (
            "The Science Museum in London built a Difference Engine.",
            ("Science Museum", "BUILT", "Difference Engine"),
        ),
        (
            "Ada Lovelace translated Menabrea's paper.",
            ("Ada Lovelace", "TRANSLATED", "Menabrea"),
        ),
        (
            "Ada Lovelace married William King.",
            ("Ada Lovelace", "MARRIED", "William King"),
        ),
        (
            "Ada Lovelace was the daughter of Lord Byron.",
            ("Ada Lovelace", "CHILD_OF", "Lord Byron"),
        ),
        (
            "Lord Byron was the father of Ada Lovelace.",
            ("Ada Lovelace", "CHILD_OF", "Lord Byron"),
        ),
        (
            "The Jacquard loom inspired the Analytical Engine.",
            ("Jacquard loom", "INSPIRED", "Analytical Engine"),
        ),
        (
            "The Analytical Engine was inspired by the Jacquard loom.",
            ("Jacquard loom", "INSPIRED", "Analytical Engine"),
        ),
        (
            "Charles Babbage corresponded with Ada Lovelace.",
            ("Charles Babbage", "CORRESPONDED_WITH", "Ada Lovelace"),
        ),
        (
            "Augustus De Morgan taught Ada Lovelace.",
            ("Augustus De Morgan", "TAUGHT", "Ada Lovelace"),
        ),
        (
            "Augustus De Morgan was Ada's tutor.",
            ("Augustus De Morgan", "TAUGHT", "Ada"),
        ),
        (
            "Babbage was a member of the Royal Astronomical Society.",
            ("Babbage", "MEMBER_OF", "Royal Astronomical Society"),
        ),
        (
            "The Science Museum is located in London.",
            ("Science Museum", "LOCATED_IN", "London"),
        ),
        (
            "Ada Lovelace met Mary Somerville.",
            ("Ada Lovelace", "RELATED_TO", "Mary Somerville"),
        ),
    ],
)
def test_typed_relation_patterns(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in triples(extract(text))


def test_relations_stay_inside_one_sentence_and_carry_it() -> None:
    text = "Charles Babbage designed engines. Ada Lovelace wrote Notes."
    result = extract(text)
    pairs = {(r.source, r.target) for r in result.relations}
    assert ("Charles Babbage", "Ada Lovelace") not in pairs and (
        "Ada Lovelace",
        "Charles Babbage",
    ) not in pairs
    for relation in result.relations:
        assert relation.sentence in text and relation.source in relation.sentence
        assert relation.chunk_id == chunk_of(text, 1).id


def test_offsets_point_at_the_mention() -> None:
    text = "Charles Babbage was born in London."
    for mention in extract(text).entities:
        assert text[mention.start : mention.end] == mention.name


def test_title_is_an_entity_of_the_first_chunk_only() -> None:
    first = extract("A mathematician of note.", title="Charles Babbage (mathematician)", index=0)
    assert [(m.name, m.start) for m in first.entities] == [("Charles Babbage", -1)]
    assert extract("A mathematician of note.", title="Charles Babbage", index=1).entities == ()


def test_given_entities_and_relations_from_metadata() -> None:
    metadata = {
        "entities": [
            {
                "name": "Ada Lovelace",
                "label": "person",
                "aliases": ["Augusta Ada King"],
                "description": "A writer.",
            }
        ],
        "relations": [{"source": "Augusta Ada King", "target": "Lord Byron", "type": "child of"}],
    }
    result = extract("Augusta Ada King was the daughter of Lord Byron.", metadata=metadata)
    given = [m for m in result.entities if m.given]
    assert [(m.name, m.label, m.start, m.description) for m in given] == [("Ada Lovelace", "Person", 0, "A writer.")]
    assert "Augusta Ada King" not in names(result)  # replaced by the given entity
    assert ("Ada Lovelace", "CHILD_OF", "Lord Byron") in triples(result)


def test_given_facts_not_mentioned_anywhere_go_to_the_first_chunk() -> None:
    metadata = {
        "entities": [{"name": "Ada Lovelace"}],
        "relations": [{"source": "Ada Lovelace", "target": "Byron"}],
    }
    context = DocumentContext("doc", "", metadata, text="Nothing here.\n\nNor here.")
    first = RuleExtractor().extract(chunk_of("Nothing here.", 0), context)
    second = RuleExtractor().extract(chunk_of("Nor here.", 1), context)
    assert [(m.name, m.start) for m in first.entities] == [("Ada Lovelace", -1)]
    assert triples(first) == {("Ada Lovelace", "RELATED_TO", "Byron")}
    assert second.entities == () and second.relations == ()


@pytest.mark.parametrize(
    "metadata",
    [
        {"entities": "Ada"},
        {"entities": [{"label": "Person"}]},
        {"relations": [{"source": "Ada"}]},
        {"entities": [3]},
    ],
)
def test_malformed_given_facts_raise(metadata: dict[str, object]) -> None:
    with pytest.raises(KnowledgeGraphError, match="document 'doc'"):
        extract("Text.", metadata=metadata)


def test_table_chunks_use_first_column_cells_and_typed_headers() -> None:
    from kg_corpus import ENGINE, chunk_document

    from agrag_lab.documents import Document

    table_chunk = next(c for c in chunk_document(Document("engine", "Analytical Engine", ENGINE)) if c.table)
    result = RuleExtractor().extract(table_chunk, DocumentContext("engine", "Analytical Engine"))
    found = names(result)
    assert {"Difference Engine", "Analytical Engine", "Charles Babbage"} <= set(found)
    assert not {"Machine", "Designer", "Year"} & set(found)  # column names are not entities
    assert ("Charles Babbage", "DESIGNED", "Difference Engine") in triples(result)
    row = next(r for r in result.relations if r.target == "Difference Engine")
    assert row.sentence == "Machine: Difference Engine; Designer: Charles Babbage; Year: 1822."


def test_extraction_is_deterministic_and_versioned() -> None:
    text = "Charles Babbage worked with Ada Lovelace in London."
    assert extract(text) == extract(text)
    assert RuleExtractor().version != RuleExtractor(pair_window=2).version


def test_any_object_with_extract_and_version_is_an_extractor() -> None:
    class Fixed:
        version = "fixed-1"

        def extract(self, chunk: Chunk, document: DocumentContext) -> Extraction:
            mention = EntityMention("Ada", "Person", chunk.id)
            result = Extraction((mention,), (RelationMention("Ada", "Byron", "CHILD_OF", chunk.id),))
            return with_given_facts(chunk, document, result)

    assert isinstance(Fixed(), Extractor) and isinstance(RuleExtractor(), Extractor)


def test_a_batch_extractor_gets_every_pair_in_one_call() -> None:
    calls: list[int] = []

    class Batched(RuleExtractor):
        def extract_many(self, items: Sequence[tuple[Chunk, DocumentContext]]) -> list[Extraction]:
            calls.append(len(items))
            return [self.extract(chunk, document) for chunk, document in items]

    pairs = [(chunk_of(f"Ada Lovelace met Charles Babbage in {town}.", i), DocumentContext("doc", ""))
             for i, town in enumerate(["London", "Paris", "Turin"])]
    batched = Batched()
    assert isinstance(batched, BatchExtractor) and not isinstance(RuleExtractor(), BatchExtractor)
    assert extract_batch(batched, pairs) == extract_batch(RuleExtractor(), pairs)
    assert calls == [3]
