"""Bring your own graph: import Microsoft GraphRAG output and GraphML into an index folder.

- :mod:`~agrag_lab.importing.tables` — find the format of a GraphRAG output
  folder from its files and columns, read its parquet tables with polars.
- :mod:`~agrag_lab.importing.graphrag` — map those tables to our frozen values
  (documents, chunks located in the text, entities, relations, communities,
  reports, claims): pure functions.
- :mod:`~agrag_lab.importing.locate` — find a text unit in its document (byte-exact offsets).
- :mod:`~agrag_lab.importing.graphml` — the same mapping for a GraphML file.
- :mod:`~agrag_lab.importing.report` — :class:`ImportReport`, what an import did.
- :mod:`~agrag_lab.importing.writer` — write mapped values into an index folder
  through the index build (``Graph.import_graphrag``, ``Graph.import_graphml``).
"""

from __future__ import annotations

from agrag_lab.importing.errors import ImportConflictError, ImportSourceError
from agrag_lab.importing.report import ImportReport, Skipped

__all__ = ["ImportConflictError", "ImportReport", "ImportSourceError", "Skipped"]
