"""Errors of an import: a source that cannot be read, an index that cannot take it.

Examples
--------
>>> from agrag_lab.errors import AgragError
>>> issubclass(ImportSourceError, AgragError) and issubclass(ImportSourceError, ValueError)
True
"""

from __future__ import annotations

from agrag_lab.errors import AgragError

__all__ = ["ImportConflictError", "ImportSourceError"]


class ImportSourceError(AgragError, ValueError):
    """The folder or file to import is not a readable GraphRAG output or GraphML graph.

    The message names the file and the column (or node, edge) that is wrong,
    and what was expected.
    """


class ImportConflictError(AgragError, RuntimeError):
    """The index folder already holds other documents; an import needs a folder of its own."""
