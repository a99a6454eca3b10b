"""The graph-only series' graph of the scale corpus, streamed into a FalkorDB server a slice of passages at a time.

:func:`stream_passages` builds the graph :func:`agrag_lab.kg.extract.pipeline.build_graph`
builds from the rule extractions of the first ``n`` passages of
:mod:`benchmarks.scale_corpus` (extracted as :mod:`benchmarks.scale_walk`
does: no embedding, no communities), ``slice_size`` passages at a time in the
build's document order, and writes it into an empty FalkorDB graph with
:func:`agrag_lab.graph_stores.falkordb.stream.stream_graph` (whose docstring says how the
corpus-wide rules are fed in parts and what the process still holds). Each
slice's passages are made alone (:func:`benchmarks.scale_corpus.passages_by_id`).

Run alone: ``python -m benchmarks.graph_only --n 10000 --port P [--graph NAME] [--json OUT]``
(a server on 127.0.0.1:P; :func:`benchmarks.scale_server.graph_only_series` starts one per size).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from agrag_lab.graph_stores.falkordb.stream import stream_graph
from agrag_lab.kg.extract.build import ChunkExtraction
from agrag_lab.kg.text import natural_key
from benchmarks.scale_corpus import Passage, passage_ids, passages_by_id

#: Passages per slice.
SLICE = 10_000


def extract_passages(found: Sequence[Passage]) -> list[ChunkExtraction]:
    """The rule extractions of these passages' chunks, as :func:`benchmarks.scale_walk.extractions` makes them."""
    from agrag_lab.index.build import prepare_document
    from agrag_lab.kg.extract.extraction import DocumentContext
    from agrag_lab.kg.extract.pipeline import extract_chunks

    todo = []
    for p in found:
        doc = p.document()
        version = prepare_document(doc, 800)
        ctx = DocumentContext(doc.id, doc.title, doc.metadata, doc.text)
        todo += [(chunk, ctx, True) for chunk in version.chunks]
    return extract_chunks(todo)


def _peak_rss() -> int:
    """This process's peak resident set (bytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _parts(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def stream_passages(n: int, store: Any, work: Path, slice_size: int = SLICE) -> dict[str, Any]:
    """The graph of the first ``n`` passages streamed into ``store`` a slice of ``slice_size`` passages at a time
    (:func:`~agrag_lab.graph_stores.falkordb.stream.stream_graph`), with this process's peak RSS."""
    ids = sorted(passage_ids(n), key=natural_key)  # the build's document order
    slices = [partial(_extract_ids, part) for part in _parts(ids, slice_size)]
    found = stream_graph(slices, store, work, log=_log)
    return {"passages": n, "slice_size": slice_size, **found, "client_peak_rss": _peak_rss()}


def _log(stage: str) -> None:
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} {stage} s, peak RSS {_peak_rss() / 2**20:.0f} MiB", file=sys.stderr,
          flush=True)


def _extract_ids(ids: Sequence[str]) -> list[ChunkExtraction]:
    return extract_passages(passages_by_id(ids))


def main(argv: Sequence[str] | None = None) -> int:
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, required=True, help="passages")
    parser.add_argument("--port", type=int, required=True, help="a FalkorDB server on 127.0.0.1")
    parser.add_argument("--graph", default="graph-only")
    parser.add_argument("--slice", type=int, default=SLICE)
    parser.add_argument("--json", default="", help="write the result here")
    args = parser.parse_args(argv)
    store = FalkorDBGraphStore.connect("127.0.0.1", args.port, graph=args.graph)
    with tempfile.TemporaryDirectory(prefix="agrag-graph-only-") as work:
        result = stream_passages(args.n, store, Path(work), args.slice)
    text = json.dumps(result, indent=1)
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
