"""The graph stores: every implementation of :class:`~agrag_lab.kg.graph_store.GraphStore`.

- :mod:`~agrag_lab.graph_stores.networkx` — :class:`NetworkXGraphStore`, the graph held in this process
  (it has the :class:`~agrag_lab.kg.graph_store.WholeGraph` capability).
- :mod:`~agrag_lab.graph_stores.persistence` — the in-process graph's file: atomic, stable JSON, gzip-compressed.
- :mod:`agrag_lab.graph_stores.falkordb` — the graph in a FalkorDB server: its store, the push that writes it,
  its Cypher names, a local server, its password, and the streamed build of a graph larger than one process.

The store contract, the scope and the visibility rule live in the graph model
(:mod:`agrag_lab.kg`); the stores import it, never the other way round.
"""
