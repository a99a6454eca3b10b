"""The Cypher names and literals of the FalkorDB graph store: labels, relationship types, parameters, addresses.

The names Cypher cannot take as parameters (node labels and relationship
types, when a graph is written) are checked against the graph's schema and
the identifier pattern here (:func:`cypher_name`); an entity label becomes a
node label by :func:`label_node`; a query's parameters travel in its
``CYPHER name=value`` header, encoded here (:func:`cypher_literal`, vectors
at once) rather than value by value by the client, a text Cypher cannot
carry (a NUL byte) encoded on the way in and decoded on the way out
(:func:`encode_text`, :func:`decode_value`); :func:`parse_address`
reads ``HOST:PORT[/GRAPH]``. Nothing here talks to a server.

Examples
--------
>>> cypher_name("WROTE"), label_node("Person")
('WROTE', 'L_Person')
>>> _header({"id": "e1", "n": 3})
'CYPHER id="e1" n=3 '
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from agrag_lab.kg.errors import KnowledgeGraphError

__all__ = [
    "CHUNK", "COLLECTION_LABELS", "COMMUNITY", "ENTITY", "FACET", "IN_COMMUNITY", "MENTIONS", "META", "REPORT",
    "RESERVED", "cypher_literal", "cypher_name", "decode_value", "encode_text", "label_node", "parse_address",
]

#: The node labels of the collections, and of the graph's bookkeeping.
ENTITY, CHUNK, COMMUNITY, REPORT, META = "Entity", "Chunk", "Community", "Report", "AgragMeta"
#: The node label of an entity's relation facets (records ``<entity id>#r<n>`` of the ``entities`` collection).
FACET = "Facet"
#: Relationship types the store itself uses (an entity relation may not take these names).
MENTIONS, IN_COMMUNITY = "MENTIONS", "IN_COMMUNITY"
RESERVED = frozenset({ENTITY, FACET, CHUNK, COMMUNITY, REPORT, META, MENTIONS, IN_COMMUNITY})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
#: Collections and the node label each is searched under.
COLLECTION_LABELS = {"entities": ENTITY, "chunks": CHUNK, "communities": REPORT}


def cypher_name(name: str, allowed: Collection[str] | None = None) -> str:
    """``name`` as a Cypher label or relationship type, checked (it cannot be a query parameter).

    It must match ``[A-Za-z_][A-Za-z0-9_]*`` (so nothing can be spliced into a
    query through it), not be one of the store's own names, and, when
    ``allowed`` is given, be one of them (the graph's schema).

    Examples
    --------
    >>> cypher_name("WORKED_WITH")
    'WORKED_WITH'
    >>> cypher_name("X]->() DETACH DELETE (n) //")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.KnowledgeGraphError: 'X]->() DETACH DELETE (n) //' cannot be a FalkorDB label or relationship type: ...
    """
    if not isinstance(name, str) or _IDENTIFIER.fullmatch(name) is None or name in RESERVED:
        raise KnowledgeGraphError(
            f"{name!r} cannot be a FalkorDB label or relationship type: use letters, digits and '_' "
            f"(not starting with a digit, at most 100 characters) and none of {sorted(RESERVED)}"
        )
    if allowed is not None and name not in allowed:
        raise KnowledgeGraphError(f"{name!r} is not in the graph's schema ({sorted(allowed)}): add it to the schema")
    return name


def parse_address(text: str) -> tuple[str, int, str | None]:
    """``HOST:PORT[/GRAPH]`` as ``(host, port, graph or None)``.

    Examples
    --------
    >>> parse_address("127.0.0.1:6379/musique")
    ('127.0.0.1', 6379, 'musique')
    >>> parse_address("localhost:6380")
    ('localhost', 6380, None)
    """
    match = re.fullmatch(r"\[?([^\[\]/]+?)\]?:(\d{1,5})(?:/([A-Za-z0-9_.-]+))?", text.strip())
    if match is None or not 0 < int(match.group(2)) < 65536:
        raise KnowledgeGraphError(f"{text!r} is not a FalkorDB address: write HOST:PORT or HOST:PORT/GRAPH")
    return match.group(1), int(match.group(2)), match.group(3)


#: The prefix of a text stored encoded: a text Cypher cannot carry (a NUL byte ends a query's parameter
#: header; a lone surrogate is no UTF-8), or one that starts with this prefix itself, is stored as the
#: prefix and the base64 of its UTF-8 bytes (surrogates passed), and read back as it was.
ENCODED = "\x01agrag-b64:"
_UNCARRIED = re.compile("[\x00\ud800-\udfff]")


def encode_text(text: str) -> str:
    r"""``text`` as the server can store it: itself, or :data:`ENCODED` and its base64 (see there).

    Examples
    --------
    >>> encode_text("plain"), encode_text("a\x00b")[len(ENCODED):], decode_value(encode_text("a\x00b"))
    ('plain', 'YQBi', 'a\x00b')
    """
    if _UNCARRIED.search(text) is None and not text.startswith(ENCODED):
        return text
    return ENCODED + base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def decode_value(value: Any) -> Any:
    """``value`` read from the server with every encoded text (:func:`encode_text`) decoded, in lists, maps
    and node or relationship properties too."""
    if isinstance(value, str):
        if value.startswith(ENCODED):
            return base64.b64decode(value[len(ENCODED):]).decode("utf-8", "surrogatepass")
        return value
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: decode_value(v) for k, v in value.items()}
    if value is None or isinstance(value, (int, float)):
        return value
    from falkordb import Edge, Node  # only the client's answers reach here, so the client is installed

    if isinstance(value, (Node, Edge)):
        properties = value.properties
        for key, item in properties.items():
            properties[key] = decode_value(item)
    return value


def _quote(text: str) -> str:
    """A Cypher string literal of ``text`` (the escaping of the falkordb client's parameter header), encoded
    first when Cypher cannot carry it (:func:`encode_text`)."""
    return '"' + encode_text(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def cypher_literal(value: Any) -> str:
    """``value`` as a literal of a query's ``CYPHER name=value`` parameter header (never part of a query's text).

    The same encoding as the falkordb client's (strings quoted, backslash and
    double quote escaped), written for speed: a vector (``numpy.ndarray``) is
    encoded at once, not float by float.

    Examples
    --------
    >>> cypher_literal({"id": 'x"}) DELETE n //', "v": np.array([0.5, 1.0]), "n": None, "ok": True})
    '{id:"x\\\\"}) DELETE n //",v:[0.5, 1.0],n:null,ok:true}'
    """
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.ndarray):  # a vector (of numbers) at once
        return str(value.ravel().tolist())
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(cypher_literal, value)) + "]"
    if isinstance(value, Mapping):
        parts = []
        for key, item in value.items():
            if not isinstance(key, str) or _IDENTIFIER.fullmatch(key) is None:
                raise KnowledgeGraphError(f"{key!r} cannot name a Cypher map key: use letters, digits and '_'")
            parts.append(f"{key}:{cypher_literal(item)}")
        return "{" + ",".join(parts) + "}"
    raise KnowledgeGraphError(f"{type(value).__name__} cannot be a Cypher parameter: pass text, numbers, lists or maps")


def _header(params: Mapping[str, Any]) -> str:
    """The ``CYPHER a=... b=...`` header that carries a query's parameters."""
    if not params:
        return ""
    for key in params:
        if _IDENTIFIER.fullmatch(key) is None:
            raise KnowledgeGraphError(f"{key!r} cannot name a Cypher parameter: use letters, digits and '_'")
    return "CYPHER " + " ".join(f"{k}={cypher_literal(v)}" for k, v in params.items()) + " "


def label_node(label: str) -> str:
    """The Cypher node label that carries the entity label ``label`` (its vector index is named by it).

    An identifier-safe label keeps its name behind ``L_``; any other (spaces,
    other scripts, punctuation) is named by a hash behind ``LX_``, so two
    labels never share one.

    Examples
    --------
    >>> label_node("Person")
    'L_Person'
    >>> label_node("event/occasion").startswith("LX_"), label_node("event/occasion") != label_node("event_occasion")
    (True, True)
    """
    if re.fullmatch(r"[A-Za-z0-9_]{1,90}", label):
        return f"L_{label}"
    return "LX_" + hashlib.sha256(label.encode("utf-8")).hexdigest()[:16]
