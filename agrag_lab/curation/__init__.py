"""Curating a graph: edits kept in the index's edit log (:mod:`.editing`).

The pure parts live below: the edits in :mod:`agrag_lab.kg.edits` and their log in
:mod:`agrag_lab.index.edit_log`; exports in :mod:`agrag_lab.exporting` (``agrag-lab export``:
:mod:`agrag_lab.export_cli`); what an edit changed in retrieval in :mod:`agrag_lab.eval.edit_impact`.
This package is never imported by a search.
"""
