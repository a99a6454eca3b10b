"""Curating a graph: exports (``agrag-lab export``), edits kept in the index's edit log, review candidates, and
what an edit changed in retrieval.

The pure parts live below this front end: the export formats in
:mod:`agrag_lab.kg.export` and :mod:`agrag_lab.kg.export_formats`, the edits
in :mod:`agrag_lab.kg.edits`. This package is never imported by a search.
"""
