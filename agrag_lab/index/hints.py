"""How to fix an index folder: the commands that error messages and ``agrag-lab doctor`` name.

The lowest floor of :mod:`agrag_lab.index` (it imports nothing of it), so
that the build, the folder checks and the doctor all word a fix the same way.

Examples
--------
>>> from pathlib import Path
>>> repair_hint(Path("ix"))
'`agrag-lab repair --index ix`'
>>> name_folder("rebuild it with `agrag-lab repair --index DIR` (DIR: the index folder holding it)", Path("ix"))
'rebuild it with `agrag-lab repair --index ix`'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["name_folder", "repair_hint"]


def repair_hint(folder: Path) -> str:
    """The command that rebuilds every derived store of ``folder``."""
    return f"`agrag-lab repair --index {folder}`"


def name_folder(message: str, folder: Path) -> str:
    """A lower layer's message naming ``agrag-lab repair --index DIR``, with the real folder in it."""
    return message.replace(" (DIR: the index folder holding it)", "").replace("--index DIR", f"--index {folder}")
