"""``agrag-lab export``: write an index's graph, or a part of it, as GraphML, GEXF, JSON, Cypher or neo4j-admin CSVs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.kg.export_formats import FORMATS
from agrag_lab.limits import int_in

if TYPE_CHECKING:
    from agrag_lab.cli_options import Subcommands


__all__ = ["cmd_export", "register"]


def cmd_export(args: argparse.Namespace) -> int:
    """Run ``agrag-lab export`` (see :func:`register`)."""
    from agrag_lab import recipes
    from agrag_lab.graph import Graph

    with Graph.open(args.index, read_only=True) as graph:
        run = None
        if args.query is not None:
            run = graph.engine().run(args.query, recipes.get(args.recipe))
        written = graph.export(args.out, args.format, community=args.community, around=args.around,
                               depth=args.depth, run=run, with_communities=args.with_communities)
    print(f"wrote {written}")
    return 0


def register(subparsers: Subcommands) -> None:
    """Add the ``export`` sub-command to the ``agrag-lab`` parser."""
    p = subparsers.add_parser(
        "export", help="write the graph (or a community, a neighbourhood, what a search used) as GraphML, GEXF, "
        "JSON, Cypher or neo4j-admin CSVs",
        description="Write an index's knowledge graph, or one part of it, for Gephi, yEd, Cytoscape (GraphML, "
        "GEXF), the web (graphology JSON for sigma.js / Cosmograph) or Neo4j (a Cypher script, or the nodes.csv "
        "and relationships.csv of neo4j-admin database import).",
    )
    p.add_argument("out", type=Path, help="the file to write (a folder for neo4j-csv)")
    p.add_argument("--index", required=True, help="an existing index folder")
    p.add_argument("--format", choices=tuple(FORMATS), default=None,
                   help="default: told by the suffix of OUT (.graphml, .gexf, .json, .cypher)")
    part = p.add_mutually_exclusive_group()
    part.add_argument("--community", help="only this community (its members, their relations, its report)")
    part.add_argument("--around", help="only this entity (id or name) and its neighbourhood (see --depth)")
    part.add_argument("--query", help="only what a search for this query used (seeds, walked paths, reports, results)")
    p.add_argument("--depth", type=int_in(0, 6, "how many relations from --around"), default=1,
                   help="relations from --around (0-6, default 1)")
    p.add_argument("--recipe", default="GRAPH_HYBRID", help="the recipe --query runs (default GRAPH_HYBRID)")
    p.add_argument("--with-communities", action="store_true",
                   help="the whole graph: also the communities, as nodes linked to their members")
    p.set_defaults(func=cmd_export)
