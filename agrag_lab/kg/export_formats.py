"""Write a :class:`~agrag_lab.kg.export.Subgraph` as GraphML, GEXF, graphology JSON, Cypher or ``neo4j-admin`` CSVs.

:data:`FORMATS` names each; :func:`write` writes one to a path (a folder for
``neo4j-csv``). Every format holds the same nodes, edges and properties:

- ``graphml`` and ``gexf``: networkx's writers (Gephi, yEd, Cytoscape), over
  :func:`to_networkx`; a tuple property becomes JSON text (they hold scalars).
- ``json``: graphology's serialised form (what sigma.js and Cosmograph load:
  ``{"attributes", "options", "nodes": [{"key", "attributes"}], "edges": [...]}``).
- ``cypher``: a script of ``CREATE`` statements, one a line (Neo4j's
  ``cypher-shell -f``; FalkorDB reads it statement by statement). Every node
  has the label ``Entity``, ``Chunk`` or ``Community`` (and an entity its own
  label), its id in ``id``; values are literals, never spliced names: labels,
  types and keys are back-quoted.
- ``neo4j-csv``: ``nodes.csv`` and ``relationships.csv`` with
  ``neo4j-admin database import`` headers (``id:ID``, ``:LABEL``,
  ``:START_ID``, ``:END_ID``, ``:TYPE``; arrays ``string[]`` joined by ``;``).

Examples
--------
>>> from agrag_lab.kg.export import ExportEdge, ExportNode, Subgraph
>>> sub = Subgraph.create("t", [ExportNode("a", "entity", ("Person",), (("name", "Ada"),)),
...                            ExportNode("b", "entity", ("Person",), (("name", "Bob's"),))],
...                       [ExportEdge("a", "b", "KNOWS", (("weight", 2),))])
>>> print(cypher_script(sub))  # doctest: +NORMALIZE_WHITESPACE
CREATE INDEX FOR (n:Entity) ON (n.id);
CREATE (:Entity:`Person` {id: "a", kind: "entity", `name`: "Ada"});
CREATE (:Entity:`Person` {id: "b", kind: "entity", `name`: "Bob's"});
MATCH (a:Entity {id: "a"}), (b:Entity {id: "b"}) CREATE (a)-[:`KNOWS` {`weight`: 2}]->(b);
>>> graphology(sub)["edges"][0]["source"], to_networkx(sub).number_of_edges()
('a', 1)
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from agrag_lab.errors import ArgumentError
from agrag_lab.kg.export import ExportNode, Properties, PropertyValue, Subgraph
from agrag_lab.storage.atomic import write_text_atomic

__all__ = ["FORMATS", "cypher_script", "graphology", "neo4j_csv", "node_label", "to_networkx", "write"]

#: The label every node of a kind gets in Cypher and the CSVs.
KIND_LABELS = {"entity": "Entity", "chunk": "Chunk", "community": "Community"}
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: neo4j-admin's default array delimiter.
ARRAY_DELIMITER = ";"


def node_label(node: ExportNode) -> str:
    """The label shown for a node: its ``name`` property, else its id."""
    name = node.get("name")
    return str(name) if name else node.id


def _scalar(value: PropertyValue) -> str | int | float | bool:
    return json.dumps(list(value), ensure_ascii=False) if isinstance(value, tuple) else value


def to_networkx(sub: Subgraph) -> Any:
    """The subgraph as a ``networkx.MultiDiGraph`` keyed by edge type, every value a scalar (GraphML/GEXF-ready).

    Each node also has ``labels`` (``;``-joined) and ``label`` for display
    (Gephi reads ``label``); the entity's schema label is kept as ``entity_label``.
    """
    import networkx as nx  # type: ignore[import-untyped,unused-ignore]

    graph = nx.MultiDiGraph(name=sub.title, **dict(sub.attributes))
    for n in sub.nodes:
        props = {k: _scalar(v) for k, v in n.properties if k != "label"}
        if n.get("label"):
            props["entity_label"] = str(n.get("label"))
        graph.add_node(n.id, **props, labels=ARRAY_DELIMITER.join(n.labels), label=node_label(n))
    for e in sub.edges:
        graph.add_edge(e.source, e.target, key=e.type, **{k: _scalar(v) for k, v in e.properties})
    return graph


def graphology(sub: Subgraph) -> dict[str, Any]:
    """The subgraph in graphology's serialised form (sigma.js, Cosmograph): a JSON-ready dict."""
    def attrs(props: Properties) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in props}

    return {
        "attributes": {"name": sub.title, **dict(sub.attributes)},
        "options": {"type": "directed", "multi": True, "allowSelfLoops": True},
        "nodes": [{"key": n.id, "attributes": {**attrs(n.properties), "label": node_label(n),
                                                "labels": list(n.labels), "kind": n.kind}} for n in sub.nodes],
        "edges": [{"key": f"{e.source}|{e.type}|{e.target}", "source": e.source, "target": e.target,
                   "attributes": {**attrs(e.properties), "type": e.type}} for e in sub.edges],
    }


# -- Cypher ---------------------------------------------------------------------------------


def _name(name: str) -> str:
    """A label, type or key in back-quotes (a back-quote inside doubled)."""
    return "`" + name.replace("`", "``") + "`"


def _key(name: str) -> str:
    return name if name in ("id", "kind") else _name(name)


def _literal(value: PropertyValue) -> str:
    """A Cypher literal: strings in double quotes with JSON escapes (Neo4j and FalkorDB both read them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ArgumentError(f"a property value {value!r} cannot be written as Cypher; leave it out of the export")
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _map(node_id: str | None, kind: str | None, props: Properties) -> str:
    parts = [f"id: {_literal(node_id)}"] if node_id is not None else []
    parts += [f"kind: {_literal(kind)}"] if kind is not None else []
    parts += [f"{_key(k)}: {_literal(v)}" for k, v in props if k not in ("id", "kind")]
    return "{" + ", ".join(parts) + "}"


def cypher_script(sub: Subgraph) -> str:
    """``CREATE`` statements for every node and edge, one a line (see the module's Examples)."""
    lines = [f"CREATE INDEX FOR (n:{KIND_LABELS[k]}) ON (n.id);"
             for k in KIND_LABELS if any(n.kind == k for n in sub.nodes)]
    kinds = {n.id: KIND_LABELS[n.kind] for n in sub.nodes}
    for n in sub.nodes:
        labels = "".join(f":{_name(label)}" for label in n.labels if label != KIND_LABELS[n.kind])
        lines.append(f"CREATE (:{KIND_LABELS[n.kind]}{labels} {_map(n.id, n.kind, n.properties)});")
    for e in sub.edges:
        props = tuple((k, v) for k, v in e.properties if k != "type")
        lines.append(
            f"MATCH (a:{kinds[e.source]} {{id: {_literal(e.source)}}}), (b:{kinds[e.target]} {{id: {_literal(e.target)}}}) "
            f"CREATE (a)-[:{_name(e.type)} {_map(None, None, props)}]->(b);"
        )
    return "\n".join(lines) + "\n"


# -- neo4j-admin CSVs ---------------------------------------------------------------------------


def _csv_type(values: Iterable[PropertyValue]) -> str:
    seen = {type(v) for v in values}
    if seen == {tuple}:
        return ":string[]"
    if seen == {bool}:
        return ":boolean"
    if seen == {int}:
        return ":long"
    if seen <= {int, float} and seen:
        return ":double"
    return ""


def _csv_value(value: PropertyValue | None) -> str:
    if value is None:
        return ""
    if isinstance(value, tuple):
        return ARRAY_DELIMITER.join(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def neo4j_csv(sub: Subgraph) -> dict[str, list[list[str]]]:
    """``{"nodes.csv": rows, "relationships.csv": rows}`` with neo4j-admin import headers (first row)."""
    def table(items: list[tuple[list[str], Properties]], head: list[str], skip: set[str]) -> list[list[str]]:
        keys = sorted({k for _, props in items for k, _ in props} - skip)
        types = {k: _csv_type([v for _, props in items for kk, v in props if kk == k]) for k in keys}
        rows = [head + [f"{k}{types[k]}" for k in keys]]
        for fixed, props in items:
            values = dict(props)
            rows.append(fixed + [_csv_value(values.get(k)) for k in keys])
        return rows

    nodes = table([([n.id, ARRAY_DELIMITER.join(dict.fromkeys([KIND_LABELS[n.kind], *n.labels]))], n.properties)
                   for n in sub.nodes], ["id:ID", ":LABEL"], {"id"})
    edges = table([([e.source, e.target, e.type], e.properties) for e in sub.edges],
                  [":START_ID", ":END_ID", ":TYPE"], {"type"})
    return {"nodes.csv": nodes, "relationships.csv": edges}


# -- writing ---------------------------------------------------------------------------------


def _write_networkx(writer: str) -> Callable[[Subgraph, Path], None]:
    def write_it(sub: Subgraph, path: Path) -> None:
        import networkx as nx  # type: ignore[import-untyped,unused-ignore]

        tmp = path.with_name(path.name + ".tmp")
        getattr(nx, writer)(to_networkx(sub), tmp)
        os.replace(tmp, path)

    return write_it


def _write_json(sub: Subgraph, path: Path) -> None:
    write_text_atomic(path, json.dumps(graphology(sub), ensure_ascii=False, indent=1))


def _write_cypher(sub: Subgraph, path: Path) -> None:
    write_text_atomic(path, cypher_script(sub))


def _write_csv(sub: Subgraph, path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    for name, rows in neo4j_csv(sub).items():
        tmp = path / f".{name}.tmp"
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
        os.replace(tmp, path / name)


#: Format name → (writer, file suffix; ``""``: a folder).
FORMATS: dict[str, tuple[Callable[[Subgraph, Path], None], str]] = {
    "graphml": (_write_networkx("write_graphml"), ".graphml"),
    "gexf": (_write_networkx("write_gexf"), ".gexf"),
    "json": (_write_json, ".json"),
    "cypher": (_write_cypher, ".cypher"),
    "neo4j-csv": (_write_csv, ""),
}


def format_of(path: str | os.PathLike[str], fmt: str | None = None) -> str:
    """The format asked for, or the one the path's suffix names.

    Raises
    ------
    ArgumentError
        ``fmt`` is not in :data:`FORMATS`, or it is not given and the suffix names none.

    Examples
    --------
    >>> format_of("g.gexf"), format_of("out", "neo4j-csv")
    ('gexf', 'neo4j-csv')
    """
    if fmt is not None:
        if fmt not in FORMATS:
            raise ArgumentError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower()
    for name, (_, ending) in FORMATS.items():
        if ending and suffix == ending:
            return name
    raise ArgumentError(
        f"cannot tell the export format of {os.fspath(path)!r} from its suffix; name it "
        f"(format=...: one of {', '.join(FORMATS)}) or end the file name in .graphml, .gexf, .json or .cypher"
    )


def write(sub: Subgraph, path: str | os.PathLike[str], fmt: str | None = None) -> Path:
    """Write ``sub`` at ``path`` in ``fmt`` (default: told by the suffix, :func:`format_of`); return the path.

    A file is replaced whole (written beside it, then moved); ``neo4j-csv``
    writes ``nodes.csv`` and ``relationships.csv`` into the folder ``path``.
    """
    chosen = format_of(path, fmt)
    target = Path(path)
    if FORMATS[chosen][1]:
        target.parent.mkdir(parents=True, exist_ok=True)
    FORMATS[chosen][0](sub, target)
    return target
