"""Read files and folders into :class:`~agrag_lab.documents.Document` objects.

Supported: ``.md``/``.markdown`` (Markdown), ``.txt`` (plain text) and
``.jsonl`` (one ``{"id", "title", "text"}`` object per line, optional
``format`` and ``metadata``). Every file is read and checked before anything
is ingested, so a bad file never leaves a half-done ingest behind.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "Ada Lovelace.md").write_text("# Ada Lovelace\\n\\nWrote Note G.")
>>> [(doc.id, doc.title) for doc in load_paths([d])]
[('ada-lovelace', 'Ada Lovelace')]
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from agrag_lab.documents import Document, DocumentFormat
from agrag_lab.errors import DocumentError

SUPPORTED_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".jsonl": "jsonl"}
#: Largest document accepted, in characters (a larger one is refused with a hint).
MAX_DOCUMENT_CHARS = 5_000_000


def slugify(name: str) -> str:
    """A URL-safe document id from a file name.

    Examples
    --------
    >>> slugify("Difference Engine (No. 2)")
    'difference-engine-no.-2'
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9._~-]+", "-", ascii_name).strip("-._~").lower()
    return slug or "document"


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read the file ({exc.strerror}); check that it exists and is readable") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"{path}: not valid UTF-8 (byte {exc.start}); convert it, e.g. `iconv -f latin1 -t utf-8`"
        ) from exc


def _title(text: str, fallback: str) -> str:
    match = re.search(r"^#[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE)
    return match.group(1).strip() if match else fallback


def check_size(document: Document, origin: str) -> None:
    """Refuse documents over :data:`MAX_DOCUMENT_CHARS` with a clear message."""
    if len(document.text) > MAX_DOCUMENT_CHARS:
        raise DocumentError(
            f"{origin}: document {document.id!r} has {len(document.text):,} characters, over the "
            f"limit of {MAX_DOCUMENT_CHARS:,}; split it into several documents"
        )


def load_file(path: Path) -> list[Document]:
    """Read one file into documents (a ``.jsonl`` file may hold many)."""
    kind = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise DocumentError(
            f"{path}: unsupported file type {path.suffix or '(none)'}; use "
            + ", ".join(sorted(SUPPORTED_SUFFIXES))
        )
    text = _read_text(path)
    if kind != "jsonl":
        stem = path.stem
        if not text.strip():
            raise DocumentError(f"{path}: the file is empty; add text or leave it out")
        fmt: DocumentFormat = "markdown" if kind == "markdown" else "text"
        doc = Document(slugify(stem), _title(text, stem) if fmt == "markdown" else stem, text, fmt)
        check_size(doc, str(path))
        return [doc]
    docs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DocumentError(f"{where}: not valid JSON ({exc.msg}); each line must be one JSON object") from exc
        if not isinstance(record, dict) or not all(k in record for k in ("id", "text")):
            raise DocumentError(f'{where}: each line needs at least "id" and "text" (and usually "title")')
        try:
            doc = Document(
                str(record["id"]),
                str(record.get("title", record["id"])),
                record["text"],
                record.get("format", "text"),
                record.get("metadata", {}),
            )
        except DocumentError as exc:
            raise DocumentError(f"{where}: {exc}") from exc
        check_size(doc, where)
        docs.append(doc)
    if not docs:
        raise DocumentError(f"{path}: no documents in the file")
    return docs


def iter_files(paths: Iterable[Path]) -> list[Path]:
    """Expand folders into their supported files (sorted); keep files as given."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES)
        elif path.exists():
            out.append(path)
        else:
            raise DocumentError(f"{path}: no such file or folder")
    return out


def load_paths(paths: Sequence[str | Path]) -> list[Document]:
    """Read files and folders; raise on the first bad file, naming it, before any ingest."""
    docs: list[Document] = []
    for path in iter_files(Path(p) for p in paths):
        docs += load_file(path)
    return docs
