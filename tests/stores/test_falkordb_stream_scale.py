"""The streamed build of 2,000 scale-corpus passages, resolved and written in parts, equals the whole build.

The graph-only series (:mod:`benchmarks.graph_only`) streams up to 1M passages
with resolution in parts (:func:`~agrag_lab.kg.extract.resolution_parts.resolve_parts`)
and each entity's and relation's slices gathered in spilled partitions
(:class:`~agrag_lab.storage.spill.Spill`). Here 2,000 passages in five slices and
seven partitions: the server graph's records equal those of
:func:`~agrag_lab.kg.extract.pipeline.build_graph`'s graph pushed whole, and resolving
the slices' mention records in parts equals resolving them at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import pytest

from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
from agrag_lab.graph_stores.falkordb.stream import graph_records, stream_graph
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.extract.build import ChunkExtraction, mention_records, ordered_chunks
from agrag_lab.kg.extract.confirmation import confirm_names, corpus_evidence
from agrag_lab.kg.extract.pipeline import build_graph
from agrag_lab.kg.extract.resolution import MentionRecord, resolve
from agrag_lab.kg.extract.resolution_parts import resolve_parts
from agrag_lab.kg.schema import GENERIC
from agrag_lab.kg.text import natural_key
from benchmarks.graph_only import extract_passages
from benchmarks.scale_corpus import passage_ids, passages_by_id

PASSAGES = 2000
SLICE = 400


@pytest.fixture(scope="module")
def slices() -> list[list[ChunkExtraction]]:
    """The 2,000 passages' extractions, in slices of whole passages in the build's document order."""
    ids = sorted(passage_ids(PASSAGES), key=natural_key)
    return [extract_passages(passages_by_id(ids[i:i + SLICE])) for i in range(0, len(ids), SLICE)]


@pytest.fixture(scope="module")
def mention_parts(slices: list[list[ChunkExtraction]]) -> list[list[MentionRecord]]:
    """Each slice's mention records, names confirmed with the whole corpus's evidence (as the streamed build does)."""
    ordered = [ordered_chunks(list(s)) for s in slices]
    found = [corpus_evidence(items) for items in ordered]
    evidence = (frozenset().union(*(f for f, _ in found)), frozenset().union(*(w for _, w in found)))
    return [mention_records(confirm_names(items, evidence), GENERIC)[0] for items in ordered]


def test_resolution_in_parts_equals_the_whole_resolution(mention_parts: list[list[MentionRecord]]) -> None:
    whole = resolve([m for part in mention_parts for m in part])
    found = resolve_parts(len(mention_parts), mention_parts.__getitem__)
    assert len(whole.entities) > 1000
    assert found.entities == whole.entities
    assert [a for part in found.assignments for a in part] == list(whole.assignment)
    short = sum(1 for a, m in zip(whole.assignment, (m for p in mention_parts for m in p), strict=True)
                if a >= 0 and whole.entities[a].name != m.name)
    assert short > 0  # some mentions resolved to another form's entity: the corpus exercises the short-form rules


def test_streamed_2k_graph_in_partitions_equals_the_whole_build(
        slices: list[list[ChunkExtraction]], falkordb_server: tuple[str, int], tmp_path: Path) -> None:
    host, port = falkordb_server
    source = NetworkXGraphStore(build_graph([x for s in slices for x in s]))
    whole = FalkorDBGraphStore.connect(host, port, graph="stream-2k-whole")
    whole.clear()
    whole.push(source)
    streamed = FalkorDBGraphStore.connect(host, port, graph="stream-2k-parts")
    streamed.clear()
    read: Sequence[Callable[[], Sequence[ChunkExtraction]]] = [partial(list, s) for s in slices]
    found = stream_graph(read, streamed, tmp_path, partitions=7)
    graph = source.graph
    assert (found["slices"], found["partitions"]) == (5, 7)
    assert (found["entities"], found["relations"]) == (len(graph.entities), len(graph.edges))
    records = graph_records(streamed)
    assert records == graph_records(whole)
    assert len(records["relations"]) == len(graph.edges) > 1000
    assert streamed.entities() == source.entities()
