"""The scale bench's corpus: every real passage we have, then recombined variants where more are needed.

How the corpus is made (BENCHMARKS.md quotes this):

1. **Real passages.** Every document of the bundled MuSiQue corpus (1,890 passages; the shared
   ``musique_multihop`` copy is byte-identical, so it is not counted twice), the bundled workshop
   corpus (24 Markdown documents, current versions), SciFact (all 5,183 abstracts, title then
   sentences, as :func:`agrag_lab.eval.scifact.scifact` reads them), GraphRAG-Bench Medical (the
   1,444 passages of :func:`agrag_lab.eval.graphrag_bench.documents`) and the text units of the
   Microsoft GraphRAG run over *A Christmas Carol* (``msgraphrag_christmas_carol/v3``), each cut
   by the library's own chunker (:func:`agrag_lab.chunking.chunk_text`, 800 characters, the
   index's default) into passages. One passage is one :class:`~agrag_lab.documents.Document`
   (``format="text"``), so an index of ``n`` passages has ``n`` chunks.
2. **Order.** Passages are sorted by the SHA-1 of their id, so every prefix is a proportional mix of
   the five sources; the corpus of ``n`` passages is the first ``n``, and each size holds the
   smaller ones.
3. **Variants, only past the real passages.** Round ``r`` = 1, 2, ... adds one variant per real
   passage ``p`` (in the same order): the second half of ``p``'s sentences followed by the first
   half of the sentences of ``q``, the passage ``r`` places after ``p`` among the passages of the
   same source (in SHA-1 order), packed to at most 800 characters; title ``"<p's title> / <q's
   title>"``, id ``v<r>-<p's id>``. Every variant is new text made only of real sentences, and
   joins entities that did not co-occur before, so the graph grows in edges as a larger corpus
   of the same domains would; nothing is copied verbatim.

Examples
--------
>>> split_sentences("Ada wrote Note G. It computed Bernoulli numbers! Was it a program?")
['Ada wrote Note G.', 'It computed Bernoulli numbers!', 'Was it a program?']
>>> recombine(["a1.", "a2.", "a3.", "a4."], ["b1.", "b2."], size=800)
'a3. a4. b1.'
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agrag_lab.chunking import chunk_text
from agrag_lab.documents import Document

#: The shared datasets: ``$AGRAG_SHARED_DATASETS``, else ``../shared/datasets`` beside the checkout.
SHARED = Path(os.environ.get("AGRAG_SHARED_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets"))
PASSAGE_CHARS = 800
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")


@dataclass(frozen=True)
class Passage:
    """One passage of the corpus and the data set it came from."""

    id: str
    title: str
    text: str
    source: str

    def document(self) -> Document:
        return Document(self.id, self.title, self.text, "text", {"source": self.source})


def split_sentences(text: str) -> list[str]:
    """Sentences at ``.``, ``!`` or ``?`` followed by white space."""
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def recombine(first: Sequence[str], second: Sequence[str], *, size: int = PASSAGE_CHARS) -> str:
    """The second half of ``first`` then the first half of ``second`` (at least one sentence each), at most ``size`` chars."""
    chosen = list(first[len(first) // 2 :]) + list(second[: max(1, len(second) // 2)])
    text = ""
    for sentence in chosen:
        joined = f"{text} {sentence}" if text else sentence
        if text and len(joined) > size:
            break
        text = joined
    return text[:size] if len(text) > size else text


def _chunks(doc: Document, source: str) -> list[Passage]:
    _, chunks = chunk_text(doc.id, "v", doc.text, doc.format, chunk_size=PASSAGE_CHARS, title=doc.title)
    return [
        Passage(f"{source}-{doc.id}-{i}" if len(chunks) > 1 else f"{source}-{doc.id}", doc.title, c.text, source)
        for i, c in enumerate(chunks)
        if c.text.strip()
    ]


def _sha(key: str) -> str:
    return hashlib.sha1(key.encode("utf-8")).hexdigest()


@cache
def real_passages(shared: Path = SHARED) -> tuple[Passage, ...]:
    """Every real passage, in SHA-1 order of id."""
    import polars as pl

    from agrag_lab.datasets import musique, workshop
    from agrag_lab.eval import graphrag_bench
    from agrag_lab.eval.scifact import scifact

    sources: dict[str, Sequence[Document]] = {
        "musique": musique().documents,
        "workshop": workshop().current_documents(),
        "scifact": scifact(shared / "scifact").documents,
        "medical": graphrag_bench.documents(shared / "graphrag_bench_medical"),
    }
    units = pl.read_parquet(shared / "msgraphrag_christmas_carol" / "v3" / "text_units.parquet")
    sources["carol"] = [
        Document(f"unit-{row['human_readable_id']}", "A Christmas Carol", row["text"], "text")
        for row in units.iter_rows(named=True)
    ]
    out = [p for name, docs in sources.items() for doc in docs for p in _chunks(doc, name)]
    return tuple(sorted(out, key=lambda p: _sha(p.id)))


@cache
def _sources(shared: Path = SHARED) -> tuple[dict[str, list[Passage]], dict[str, int], dict[str, Passage]]:
    """The real passages per source (SHA-1 order), each one's place in its source, and each by id."""
    by_source: dict[str, list[Passage]] = {}
    for p in real_passages(shared):
        by_source.setdefault(p.source, []).append(p)
    place = {p.id: i for group in by_source.values() for i, p in enumerate(group)}
    return by_source, place, {p.id: p for p in real_passages(shared)}


def _variant(p: Passage, r: int, shared: Path) -> Passage:
    """Round ``r``'s variant of the real passage ``p`` (the module docstring's rule 3)."""
    by_source, place, _ = _sources(shared)
    group = by_source[p.source]
    q = group[(place[p.id] + r) % len(group)]
    text = recombine(split_sentences(p.text), split_sentences(q.text))
    return Passage(f"v{r}-{p.id}", f"{p.title} / {q.title}", text, p.source)


def passage_ids(n: int, shared: Path = SHARED) -> list[str]:
    """The ids of :func:`passages` ``(n)``, in its order, without making their texts."""
    real = real_passages(shared)
    out = [p.id for p in real[:n]]
    r = 0
    while len(out) < n:
        r += 1
        out += [f"v{r}-{p.id}" for p in real[: n - len(out)]]
    return out


_VARIANT_ID = re.compile(r"v(\d+)-(.+)")


def passages_by_id(ids: Sequence[str], shared: Path = SHARED) -> list[Passage]:
    """The passages with these ids (of :func:`passage_ids`), in that order: a part of a large corpus, made alone."""
    _, _, real = _sources(shared)
    out = []
    for key in ids:
        found = real.get(key)
        if found is None:
            variant = _VARIANT_ID.fullmatch(key)
            if variant is None or variant.group(2) not in real:
                raise KeyError(f"{key!r} is no passage id of the scale corpus")
            found = _variant(real[variant.group(2)], int(variant.group(1)), shared)
        out.append(found)
    return out


def passages(n: int, shared: Path = SHARED) -> list[Passage]:
    """The first ``n`` passages of the corpus: real ones, then variants round by round."""
    real = real_passages(shared)
    if n <= len(real):
        return list(real[:n])
    out = list(real)
    r = 0
    while len(out) < n:
        r += 1
        out += [_variant(p, r, shared) for p in real[: n - len(out)]]
    return out


def describe(shared: Path = SHARED) -> dict[str, int]:
    """Real passages per source."""
    counts: dict[str, int] = {}
    for p in real_passages(shared):
        counts[p.source] = counts.get(p.source, 0) + 1
    return counts
