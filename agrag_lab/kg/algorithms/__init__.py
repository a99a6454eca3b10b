"""Algorithms over the graph model: plain functions (and one walk mixin) over graph values.

- :mod:`~agrag_lab.kg.algorithms.walks` — :class:`GraphWalks`: breadth-first walk, hop distances,
  relation types, written over a store's two look-ups (every graph store shares it).
- :mod:`~agrag_lab.kg.algorithms.pagerank` — personalised PageRank over entities and passages.
- :mod:`~agrag_lab.kg.algorithms.communities` — hierarchical Leiden communities (graspologic-native).

They import the graph model (:mod:`agrag_lab.kg`) and nothing of extraction, the stores or search.
"""
