"""Errors of an import (their one home is :mod:`agrag_lab.errors`; re-exported here).

Examples
--------
>>> from agrag_lab.errors import ArgumentError, StoreError
>>> issubclass(ImportSourceError, ArgumentError) and issubclass(ImportConflictError, StoreError)
True
"""

from __future__ import annotations

from agrag_lab.errors import ImportConflictError, ImportSourceError

__all__ = ["ImportConflictError", "ImportSourceError"]
