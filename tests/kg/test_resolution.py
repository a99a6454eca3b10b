from __future__ import annotations

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.extract.resolution import MentionRecord, resolve, title_core
from agrag_lab.kg.text import match_key


def names_of(records: list[MentionRecord]) -> list[str]:
    result = resolve(records)
    return [result.entities[i].name for i in result.assignment]


def test_match_key_folds_case_possessive_punctuation_and_diacritics() -> None:
    assert match_key("Babbage's") == match_key("BABBAGE") == "babbage"
    assert match_key("Bibliothèque universelle de Genève") == "bibliotheque universelle de geneve"
    assert match_key("The Analytical Engine") == match_key("analytical engine")


def test_surname_resolves_to_the_unique_full_name() -> None:
    records = [
        MentionRecord("Charles Babbage", "Person", "a"),
        MentionRecord("Babbage", "Entity", "b"),
    ]
    assert names_of(records) == ["Charles Babbage", "Charles Babbage"]


def test_ambiguous_short_forms_stay_apart_but_prefer_the_same_document() -> None:
    records = [
        MentionRecord("G. Stanley Hall", "Person", "psych"),
        MentionRecord("Carnegie Hall", "Place", "music"),
        MentionRecord("Hall", "Entity", "psych"),
        MentionRecord("Hall", "Entity", "elsewhere"),
    ]
    assert names_of(records) == [
        "G. Stanley Hall",
        "Carnegie Hall",
        "G. Stanley Hall",
        "Hall",
    ]


def test_a_definite_label_blocks_a_merge() -> None:
    records = [
        MentionRecord("George Washington", "Person", "a"),
        MentionRecord("Washington", "Place", "b"),
    ]
    assert names_of(records) == ["George Washington", "Washington"]


def test_given_aliases_titles_and_first_names_join_one_entity() -> None:
    records = [
        MentionRecord(
            "Ada Lovelace",
            "Person",
            "ada",
            ("Augusta Ada King", "Ada, Countess of Lovelace"),
            True,
        ),
        MentionRecord("Augusta Ada King", "Person", "bio"),
        MentionRecord("Countess of Lovelace", "Person", "bio"),
        MentionRecord("Lovelace", "Entity", "babbage"),
        MentionRecord("Ada", "Entity", "letters"),
    ]
    result = resolve(records)
    assert len(result.entities) == 1
    entity = result.entities[0]
    assert entity.name == "Ada Lovelace" and entity.label == "Person"
    assert entity.aliases == (
        "Ada",
        "Ada, Countess of Lovelace",
        "Augusta Ada King",
        "Countess of Lovelace",
        "Lovelace",
    )


def test_title_forms_acronyms_and_abbreviated_given_names() -> None:
    assert title_core("lord byron") == "byron"
    records = [
        MentionRecord("Lord Byron", "Person", "a"),
        MentionRecord("Byron", "Entity", "b"),
        MentionRecord("European Union", "Organization", "c"),
        MentionRecord("EU", "Entity", "d"),
        MentionRecord("Johann Strauss II", "Person", "e"),
        MentionRecord("J. Strauss II", "Person", "f"),
    ]
    assert names_of(records) == [
        "Lord Byron",
        "Lord Byron",
        "European Union",
        "European Union",
        "Johann Strauss II",
        "Johann Strauss II",
    ]


def test_a_much_more_frequent_short_form_is_its_own_entity() -> None:
    records = [MentionRecord("Southern United States", "Place", "x")]
    records += [MentionRecord("United States", "Place", f"d{i}") for i in range(5)]
    assert set(names_of(records)[1:]) == {"United States"}


def test_canonical_name_is_the_most_complete_frequent_form() -> None:
    records = [MentionRecord("Babbage", "Entity", "a")] * 5 + [MentionRecord("Charles Babbage", "Person", "a")]
    assert set(names_of(records)) == {"Charles Babbage"}


def test_resolution_is_order_independent() -> None:
    records = [
        MentionRecord("Charles Babbage", "Person", "a"),
        MentionRecord("Babbage", "Entity", "b"),
        MentionRecord("Ada Lovelace", "Person", "c"),
        MentionRecord("Ada", "Entity", "c"),
    ]
    assert resolve(records).entities == resolve(records[::-1]).entities


def test_corpus_resolution_collects_mentions_across_documents(
    store: NetworkXGraphStore,
) -> None:
    babbage = store.entity_by_name("Babbage")
    assert babbage is not None and babbage.name == "Charles Babbage"
    assert babbage.document_ids == ("babbage", "engine", "lovelace")
    ada = store.entity_by_name("Augusta Ada King")
    assert ada is not None and ada.id == "ent-ada-lovelace"
    for alias in (
        "Lovelace",
        "Ada",
        "Countess of Lovelace",
        "Ada, Countess of Lovelace",
    ):
        found = store.entity_by_name(alias)
        assert found is not None and found.id == ada.id, alias
    assert ada.description.startswith("English mathematician")  # given in metadata
