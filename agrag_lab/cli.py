"""The ``agrag-lab`` command line.

Commands: ``ingest``, ``import``, ``graph``, ``search``, ``sync``, ``remove``, ``doctor``, ``repair``, ``demo``, and those other modules
register (:data:`EXTENSIONS`: ``eval``, ``mcp``, ``ask``, ``lab``, ``export``). A module
that fails to import keeps its sub-command listed; running it prints and
raises that module's real import error. Run ``agrag-lab -h``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.chunking import DEFAULT_CHUNK_SIZE
from agrag_lab.cli_options import (
    add_chroma_option,
    add_falkordb_option,
    chroma_address,
    command_parser,
    graph_store_of,
    offline_defaults,
    run_command,
    vector_store_of,
)
from agrag_lab.errors import NotFoundError, OptionError
from agrag_lab.limits import (
    MAX_CHUNK_SIZE,
    MAX_DESCRIPTION,
    MAX_IMPORT_BYTES,
    MAX_IMPORT_ROWS,
    MAX_RESULTS,
    MAX_TOP,
    MIN_CHUNK_SIZE,
    int_in,
)
from agrag_lab.storage.meta_keys import EXTRACTORS

if TYPE_CHECKING:
    from agrag_lab.cli_options import Subcommands
    from agrag_lab.embedding import Embedder
    from agrag_lab.graph import Graph
    from agrag_lab.kg.graph_store import GraphStore
    from agrag_lab.retrieval.run import SearchRun

DEFAULT_INDEX = ".agrag/workshop"
EXTRACTOR_HELP = (
    "how the knowledge graph is built: rules (offline, the default), llm (entities, relations and "
    "community reports by the endpoint of AGRAG_LLM_BASE_URL / AGRAG_LLM_MODEL / AGRAG_LLM_API_KEY) or "
    "linear (LinearRAG's tri-graph of entities, sentences and passages by spaCy's entity recognition, offline; "
    "the extra agrag_lab[linear]; the LINEARRAG recipe searches it); the index remembers the choice"
)


#: What ``--embedder`` can name.
EMBEDDERS = ("model", "static", "multilingual")


def embedder_of(args: argparse.Namespace) -> Embedder | None:
    """The embedder ``--embedder`` names (``static``: model2vec; ``multilingual``: Universal Sentence Encoder
    Multilingual v3; ``model``: the bundled one), or the endpoint
    ``--embedding-model`` / ``--embedding-url`` name, else None (the index's own)."""
    from agrag_lab.embedding import EndpointEmbedder, SentenceTransformerEmbedder, StaticEmbedder

    model, url = args.embedding_model, args.embedding_url
    if model or url:
        return EndpointEmbedder(model or "", url or "")
    if args.embedder is None:
        return None
    if args.embedder == "multilingual":
        from agrag_lab.multilingual import MultilingualEmbedder

        return MultilingualEmbedder()
    if args.embedder == "static":
        from agrag_lab.embedding import distill_static_model

        # built now, before the index folder is made: a build stopped by Ctrl-C leaves no half-made index
        distill_static_model(log=lambda message: print(f"agrag-lab {args.command}: {message}", file=sys.stderr, flush=True))
        return StaticEmbedder()
    return SentenceTransformerEmbedder()


def cmd_ingest(args: argparse.Namespace) -> int:
    from agrag_lab.graph import Graph
    from agrag_lab.loaders import load_paths
    from agrag_lab.progress import command_progress

    documents = load_paths(args.paths)  # every file checked before anything is written
    embedder = embedder_of(args)
    store = vector_store_of(args)
    with Graph.open(args.index, chunk_size=args.chunk_size, extractor=args.extractor, vector_store=store,
                    embedder=embedder, graph_store=graph_store_of(args)) as graph:
        report = graph.ingest(documents, prune=args.prune, progress=command_progress("ingest", quiet=args.quiet))
    print(f"{args.index}: {report}")
    return 0


def _summarised(graph: Graph) -> GraphStore:
    """What ``agrag-lab graph`` summarises: the whole graph when it is in process (it tells the chunks), else the
    served graph through its store."""
    from agrag_lab.kg.graph_store import WHOLE_GRAPH

    store = graph.graph_store
    return store.whole_graph() if WHOLE_GRAPH in store.capabilities else store


def cmd_graph(args: argparse.Namespace) -> int:
    from agrag_lab.graph import Graph
    from agrag_lab.kg.diagnostics import summary

    store = vector_store_of(args)
    if args.extractor is None:
        with Graph.open(args.index, read_only=True, vector_store=store, graph_store=graph_store_of(args)) as graph:
            print(summary(_summarised(graph), top=args.top))
        return 0
    from agrag_lab.progress import tqdm_progress

    with Graph.open(existing_index(args.index), extractor=args.extractor, vector_store=store, graph_store=graph_store_of(args)) as graph:  # rebuild the graph the chosen way
        since = graph.llm_stats()
        graph.sync(progress=tqdm_progress)
        print(summary(_summarised(graph), top=args.top))
        if graph.llm_summary(since):
            print(graph.llm_summary(since))
    return 0


def format_results(run: SearchRun, *, explain: bool = False, width: int = 56) -> str:
    """A readable table of a run's results (and explanations).

    Each result is named as everywhere in agrag_lab (:func:`agrag_lab.names.display_name`:
    a passage is ``title > heading > ... #c3``); its id has a column of its own,
    and the line under it is the start of its text.
    """
    from agrag_lab.names import display_name, pad
    from agrag_lab.retrieval.trace import tie_note

    lines = [f"{run.trace.recipe['name']}: {run.trace.query!r}  ({run.trace.seconds * 1000:.0f} ms)"]
    lines.append(f"{'#':>3}  {'kind':<9} {'score':>8}  {'name':<{width}}  id")
    for i, r in enumerate(run.results):
        name = display_name(r.kind, r.title, key=r.id, heading_path=tuple(r.heading_path), text=r.text, width=width)
        snippet = " ".join(r.text.split())[:width + 20]
        lines.append(f"{r.rank:>3}  {r.kind:<9} {r.score:>8.4f}  {pad(name, width)}  {r.id}")  # display columns
        lines.append(f"{'':>24}{snippet}")
        if explain:
            lines.append("\n".join("      " + line for line in run.explain(i).splitlines()))
    for m in run.trace.methods:
        if m.status not in ("ok", "empty"):  # failed, timed out, or partial (a leg failed)
            lines.append(f"  ! method {m.name} {m.status}: {m.error}")
    if explain:
        lines.extend(f"  ~ method {m.name}, tied scores: {tie_note(m)}" for m in run.trace.methods if m.tied)
        zero = run.trace.outcome.cut.zero_score
        if zero:
            lines.append(f"  ~ {len(zero)} candidate(s) with fused score 0 not returned (every vote they had weighs 0)")
    return "\n".join(lines)


def existing_index(path: str) -> Path:
    """The folder of a command that changes an existing index (``remove``, ``sync``, ``graph --extractor``):
    refused when it holds none, so that a mistyped ``--index`` makes no new empty index."""
    from agrag_lab.index.folder import check_source

    folder = Path(path)
    check_source(folder, read_only=True)
    return folder


def cmd_sync(args: argparse.Namespace) -> int:
    from agrag_lab.graph import Graph
    from agrag_lab.progress import tqdm_progress
    from agrag_lab.storage.vectors import COLLECTIONS

    existing_index(args.index)
    if args.chroma is None and args.falkordb is None:
        raise OptionError("sync needs a server to fill: --chroma HOST:PORT (vectors), --falkordb HOST:PORT[/GRAPH] "
                          "(the graph), or both")
    store = vector_store_of(args)  # before the index is locked: a dead server is refused at once
    server = graph_store_of(args)
    with Graph.open(args.index, vector_store=store) as graph:
        if store is not None:
            graph.sync(progress=tqdm_progress)  # every collection in line with documents.sqlite, by fingerprint
            counts = ", ".join(f"{len(store.fingerprints(c))} {c}" for c in COLLECTIONS)
            print(f"{args.index}: the {store.describe()} holds {counts}; search it with --chroma "
                  f"{args.chroma[0]}:{args.chroma[1]}")
        if server is not None:
            pushed = graph.push_graph(server)
            print(f"{args.index}: the FalkorDB graph {server.address} holds the index's graph (written "
                  f"{dict(pushed.written)}, removed {dict(pushed.removed)}, unchanged {dict(pushed.unchanged)}); "
                  f"search it with --falkordb {server.address}")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    if args.chroma is not None:  # a local index is read from its cached embeddings
        from agrag_lab.storage.vectors import prefetch_chromadb

        prefetch_chromadb()  # the server client's import overlaps the rest of the start-up (issue 30)
    from agrag_lab import recipes
    from agrag_lab.graph import Graph
    from agrag_lab.retrieval.filters import SearchFilters

    recipe = recipes.get(args.recipe)
    if args.limit is not None:
        recipe = recipe.replace(limit=args.limit)
    with Graph.open(args.index, read_only=True, vector_store=vector_store_of(args),
                    graph_store=graph_store_of(args)) as graph:
        documents = builder_documents(graph, args.document or ())
        filters = SearchFilters(document_ids=frozenset(documents) if documents else None)
        unknown_documents(graph, documents)
        run = graph.engine().run(args.query, recipe, filters=filters)
    for warning in run.trace.warnings:
        print(f"agrag-lab search: warning: {warning}", file=sys.stderr)
    print(format_results(run, explain=args.explain))
    return 0


def builder_documents(graph: Graph, ids: Sequence[str]) -> list[str]:
    """``--document`` ids with a builder's document ids (GraphRAG, LightRAG) replaced by ours."""
    from agrag_lab.importing.writer import builder_aliases

    aliases = builder_aliases(graph)
    return [aliases.resolve_as(d, "document") or d for d in ids]


def unknown_documents(graph: Graph, ids: Sequence[str]) -> None:
    """Refuse ``--document`` ids the index does not hold (a typo would answer nothing, as if nothing matched)."""

    unknown = [d for d in ids if (r := graph.db.document(d)) is None or r.removed]
    if unknown:
        held = [r.id for r in graph.db.documents()]
        shown = ", ".join(held[:8]) + (f" and {len(held) - 8} more" if len(held) > 8 else "")
        raise NotFoundError(
            f"--document {', '.join(map(repr, unknown))}: no such current document in {graph.path}; "
            f"its documents are {shown or 'none'}"
        )


def cmd_import(args: argparse.Namespace) -> int:
    from agrag_lab.graph import Graph
    from agrag_lab.importing.graphml import read_graphml
    from agrag_lab.importing.graphrag import read_graphrag
    from agrag_lab.importing.lightrag import read_lightrag
    from agrag_lab.importing.validate import ImportLimits
    from agrag_lab.importing.writer import write_import
    from agrag_lab.progress import command_progress

    # read first: a source that is not GraphRAG output, LightRAG or GraphML is refused before the index folder is made
    readers = {"graphrag": read_graphrag, "lightrag": read_lightrag, "graphml": read_graphml}
    limits = ImportLimits(rows=args.max_rows, description=args.max_description, bytes=args.max_bytes)
    imported = readers[args.kind](args.path, limits=limits)
    if args.kind == "graphrag" and (args.embedding_model or args.embedding_url):  # the builder's settings fill in
        from agrag_lab.importing.graphrag_settings import builder_embedding

        given = builder_embedding(Path(args.path))
        args.embedding_model = args.embedding_model or given.model
        args.embedding_url = args.embedding_url or given.url
    with Graph.open(args.index, embedder=embedder_of(args)) as graph:
        report = write_import(graph, imported, progress=command_progress("import", quiet=args.quiet))
    print(f"{args.index}: {report}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from agrag_lab.graph import Graph

    with Graph.open(existing_index(args.index), vector_store=vector_store_of(args), graph_store=graph_store_of(args)) as graph:
        for document_id in args.ids:
            changed = graph.remove(document_id)
            print(f"{args.index}: {document_id} " + ("removed" if changed else "was not stored (or already removed)"))
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from agrag_lab.index.doctor import examine

    report = examine(args.index, vector_store=vector_store_of(args))
    print(report)
    server = graph_store_of(args)
    if server is not None:  # the graph server holds this index's current graph, or says why not
        from agrag_lab.index.graph_server import check_server

        problem = check_server(Path(args.index), server)
        print(f"graph server: {problem}; push it with `agrag-lab sync --index {args.index} --falkordb "
              f"{server.address}`" if problem else f"graph server: {server.address} holds the index's current graph")
        return 0 if report.ok and problem is None else 1
    return 0 if report.ok else 1


def cmd_repair(args: argparse.Namespace) -> int:
    import time

    from agrag_lab.graph import Graph

    started = time.perf_counter()
    with Graph.open(args.index, rebuild=True, vector_store=vector_store_of(args), graph_store=graph_store_of(args)) as graph:  # embeds only what the cache lacks
        stats = graph.stats()
        store = graph.graph_store
        counts = graph.collection_counts()
        cache = f"{graph.embedded_count} texts embedded (the rest from the embedding cache)"
        if graph.pruned_embeddings:
            cache += f", {graph.pruned_embeddings} unused cached vectors deleted"
    print(
        f"{args.index}: rebuilt from documents.sqlite in {time.perf_counter() - started:.1f} s: "
        f"{stats['documents']} documents, {counts['chunks']} chunk vectors, {len(store.entities())} entities "
        f"({counts['entities']} entity records), {len(store.reports())} community reports; {cache}"
    )
    return 0


def _add_index_commands(sub: Subcommands) -> None:
    """The index folder's upkeep: ``remove``, ``doctor``, ``repair``."""
    p = sub.add_parser("remove", help="hide documents from search (their versions stay fetchable by id)")
    p.add_argument("ids", nargs="+", help="document ids")
    p.add_argument("--index", default=DEFAULT_INDEX)
    add_chroma_option(p)
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser("doctor", help="check every part of an index folder; say what is wrong and how to repair it")
    p.add_argument("--index", default=DEFAULT_INDEX)
    add_chroma_option(p)
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser(
        "repair", help="rebuild every derived store (Chroma, bm25s, graph.json.gz, reports) from documents.sqlite (an older index's graph.json is converted)"
    )
    p.add_argument("--index", default=DEFAULT_INDEX)
    add_chroma_option(p)
    p.set_defaults(func=cmd_repair)


def cmd_demo(args: argparse.Namespace) -> int:
    from agrag_lab.demo import main as demo_main

    code: int = demo_main(args)
    return code


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``agrag-lab`` parser; ``only``: of the :data:`EXTENSIONS`, import just that command's module.

    ``main`` passes the command it was given, so ``agrag-lab mcp`` does not
    import the evaluation harness, the agent or JupyterLab's launcher first,
    and a core command (``search``) imports none of them. An ``only`` that
    names no command imports them all (the usage error lists every command).
    """
    parser, sub = command_parser()

    p = sub.add_parser("ingest", help="ingest .md, .txt and .jsonl files or folders into an index")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--index", default=DEFAULT_INDEX, help="index folder (created when missing)")
    p.add_argument("--chunk-size", type=int_in(MIN_CHUNK_SIZE, MAX_CHUNK_SIZE, "the most characters per chunk"),
                   default=DEFAULT_CHUNK_SIZE, help=f"maximum characters per chunk ({MIN_CHUNK_SIZE}-{MAX_CHUNK_SIZE})")
    p.add_argument("--prune", action="store_true", help="remove stored documents not in these paths")
    p.add_argument("--extractor", choices=EXTRACTORS, default=None, help=EXTRACTOR_HELP)
    p.add_argument("--embedder", choices=EMBEDDERS, default=None,
                   help="'static': model2vec embeddings distilled from the bundled model, for corpora too large "
                        "to embed with the transformer (much faster, lower quality); 'multilingual': Universal "
                        "Sentence Encoder Multilingual v3, for text or questions outside English (the extra "
                        "agrag_lab[multilingual]). Kept in the index, so later commands use it. Default: the "
                        "index's own, else the bundled all-MiniLM-L6-v2 (English)")
    add_chroma_option(p)
    p.add_argument("--quiet", action="store_true",
                   help="no estimate and no progress bars on stderr (they are drawn only on a terminal anyway)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("graph", help="summarise the knowledge graph of an index (or rebuild it with --extractor)")
    p.add_argument("--index", default=DEFAULT_INDEX)
    p.add_argument("--top", type=int_in(1, MAX_TOP, "how many entities to list"), default=10,
                   help=f"how many of the most connected entities to list (1-{MAX_TOP})")
    p.add_argument("--extractor", choices=EXTRACTORS, default=None, help=EXTRACTOR_HELP)
    add_chroma_option(p)
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("search", help="run a recipe and print the results")
    p.add_argument("query")
    p.add_argument("--recipe", default="HYBRID", help="a built-in name or a .toml path")
    p.add_argument("--index", default=DEFAULT_INDEX)
    p.add_argument("--limit", type=int_in(1, MAX_RESULTS, "how many results the search returns"), default=None,
                   help=f"how many results (1-{MAX_RESULTS}; default: the recipe's own)")
    p.add_argument("--document", action="append", help="only these document ids (repeatable)")
    p.add_argument("--explain", action="store_true", help="explain every result")
    add_chroma_option(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("sync", help="push an index's vectors into a Chroma server and/or its graph into a FalkorDB "
                       "server (and bring every store in line)")
    p.add_argument("--index", default=DEFAULT_INDEX, help="an existing index folder")
    add_falkordb_option(p)
    p.add_argument("--chroma", type=chroma_address, metavar="HOST:PORT", default=None,
                   help="the Chroma server to fill (`chroma run --host 127.0.0.1 --port N`); only what it lacks or "
                   "holds stale is written, and what the index no longer has is deleted")
    p.set_defaults(func=cmd_sync)

    p = sub.add_parser("import", help="import a GraphRAG output folder, a LightRAG working directory or a GraphML file into a new index")
    p.add_argument("kind", choices=("graphrag", "lightrag", "graphml"),
                   help="graphrag: an output folder of parquet tables; lightrag: a working directory (graphml + "
                        "kv_store_*.json); graphml: a .graphml file (no passages)")
    p.add_argument("path", type=Path)
    p.add_argument("--index", required=True, help="index folder of its own (created when missing)")
    p.add_argument("--embedder", choices=EMBEDDERS, default=None,
                   help="'static': model2vec embeddings (much faster on a CPU, lower quality); 'multilingual': "
                        "Universal Sentence Encoder Multilingual v3, for a graph or questions outside English "
                        "(agrag_lab[multilingual]); kept in the index. Default: the index's own, else the bundled "
                        "all-MiniLM-L6-v2 (English). The builder's own model: --embedding-model/--embedding-url")
    p.add_argument("--max-rows", type=int_in(1, 2**62, "the most rows of one table an import reads"),
                   default=MAX_IMPORT_ROWS, metavar="N",
                   help=f"refuse a table (or LightRAG file, GraphML nodes or edges) of more rows (default {MAX_IMPORT_ROWS:,})")
    p.add_argument("--max-description", type=int_in(1, 2**62, "the most characters of one description"),
                   default=MAX_DESCRIPTION, metavar="CHARS",
                   help=f"refuse an entity, relation or report description longer than this (default {MAX_DESCRIPTION:,})")
    p.add_argument("--max-bytes", type=int_in(1, 2**62, "the most bytes of the files an import reads"),
                   default=MAX_IMPORT_BYTES, metavar="BYTES",
                   help=f"refuse a source whose files hold more bytes, before reading them (default {MAX_IMPORT_BYTES:,})")
    p.add_argument("--embedding-model", default=None,
                   help="search with the builder's own model through an OpenAI-compatible embeddings endpoint "
                        "(the vectors the builder stored are reused; queries are embedded there). Default with "
                        "--embedding-url: the model of GraphRAG's settings.yaml beside the output")
    p.add_argument("--embedding-url", default=None,
                   help="the endpoint's API base, e.g. http://127.0.0.1:11434/v1 (key from AGRAG_EMBEDDING_API_KEY, "
                        "never stored). Default with --embedding-model: GraphRAG's settings.yaml api_base")
    p.add_argument("--quiet", action="store_true",
                   help="no estimate and no progress bars on stderr (they are drawn only on a terminal anyway)")
    p.set_defaults(func=cmd_import)

    _add_index_commands(sub)

    p = sub.add_parser("demo", help="the main job: ingest, compare recipes, evaluate, write a report")
    p.add_argument("--index-root", default=".agrag")
    p.add_argument("--report", default="reports/demo.html")
    p.set_defaults(func=cmd_demo)

    if only is not None and only not in sub.choices and only not in {c for c, _ in EXTENSIONS}:
        only = None  # not a command: every one is listed in the error
    for command, module in EXTENSIONS:
        if only is not None and command != only:
            continue
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:  # the sub-command stays, and says why it cannot run
            _register_broken(sub, command, module, exc)
            continue
        mod.register(sub)
    return parser


#: Sub-commands contributed by other modules: ``(command, module with register(subparsers))``.
EXTENSIONS: tuple[tuple[str, str], ...] = (
    ("eval", "agrag_lab.eval.cli"),
    ("mcp", "agrag_lab.mcp.cli"),
    ("ask", "agrag_lab.agent"),
    ("lab", "agrag_lab.lab_server"),
    ("export", "agrag_lab.export_cli"),
)


def _register_broken(sub: Subcommands, command: str, module: str, error: ImportError) -> None:
    """A sub-command whose module failed to import: listed, and raising that import error when run."""
    # no option prefix: whatever options the real sub-command takes are accepted, then the error shows
    p = sub.add_parser(command, help=f"unavailable: {module} failed to import ({error})", prefix_chars="\0")
    p.add_argument("rest", nargs="*")

    def fail(args: argparse.Namespace) -> int:
        print(f"agrag-lab {command}: cannot import {module}: {type(error).__name__}: {error}", file=sys.stderr)
        raise error

    p.set_defaults(func=fail)


def main(argv: Sequence[str] | None = None) -> int:
    offline_defaults()
    given = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in given if not a.startswith("-")), None)
    # a core command (search, ingest...) imports no extension module: a core install has no JupyterLab,
    # plotly or ranx, and needs none of them to search
    return run_command(build_parser(only=command), given)


if __name__ == "__main__":
    raise SystemExit(main())
