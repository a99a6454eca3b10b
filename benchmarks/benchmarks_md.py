"""BENCHMARKS.md, the one home of every figure and of what was tried: its sections, replaced by title.

Every benchmark that writes there (``make bench``, ``make bench-startup``, ``make bench-scale``) replaces
the sections it measured and keeps every other one as it is. Inside a section it replaces, the list written
by hand under :data:`NOTES` (what was tried for that measure and did not work) is kept too, below the new
figures: a run replaces the figures, never the record of what was rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

#: The file, at the top of the checkout.
BENCHMARKS = Path(__file__).resolve().parents[1] / "BENCHMARKS.md"
#: The heading, inside a section, of the notes written by hand that every run keeps.
NOTES = "### What did not work"
#: A section: its title (after ``## ``) and its lines.
Section = tuple[str, list[str]]


def replace_sections(text: str, sections: Sequence[Section], stamp: str) -> str:
    r"""``text`` (a BENCHMARKS.md) with each of ``sections`` put in place of the one of its title (else appended).

    ``stamp`` (when and how it was measured) opens each section put in; every other section is kept as it was,
    and so is the :data:`NOTES` part of a section replaced.

    Examples
    --------
    >>> replace_sections("# B\n\n## A\n\nold\n\n## C\n\nc\n", [("A", ["new"])], "(today)")
    '# B\n\n## A\n\n(today)\n\nnew\n\n## C\n\nc\n'
    >>> replace_sections("## A\n\nold\n\n### What did not work\n\n- x\n", [("A", ["new"])], "(today)")
    '## A\n\n(today)\n\nnew\n\n### What did not work\n\n- x\n'
    """
    lines = text.splitlines()
    for title, body in sections:
        block = [f"## {title}", "", stamp, "", *body, ""]
        head = f"## {title}"
        if head in lines:
            start = lines.index(head)
            end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
            kept = lines[start:end]
            if NOTES in kept:
                block += kept[kept.index(NOTES):]
            lines[start:end] = block
        else:
            lines += ["", *block] if lines and lines[-1] else block
    return "\n".join(lines).rstrip("\n") + "\n"


def update(path: Path, sections: Sequence[Section], stamp: str) -> None:
    """Replace ``sections`` in the file at ``path`` (a new one starts with the ``# Benchmarks`` title)."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    path.write_text(replace_sections(old, sections, stamp), encoding="utf-8")
