"""Evidence ids: printable, URL-safe names of one passage of one version.

An id names a document, a prefix of the sha256 of one version's text, and
either a chunk (``#c12``) or a character span (``#s120-480``, end exclusive).

Examples
--------
>>> from agrag_lab.ids import EvidenceId
>>> x = EvidenceId.parse("doc-7@3f9a1c2b0d4e#c12")
>>> x.document_id, x.version, x.chunk
('doc-7', '3f9a1c2b0d4e', 12)
>>> str(EvidenceId("doc-7", "3f9a1c2b0d4e", span=(120, 480)))
'doc-7@3f9a1c2b0d4e#s120-480'
>>> EvidenceId.parse(str(x)) == x
True
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from agrag_lab.errors import EvidenceIdError

#: Characters a document id may use: URL-safe without escaping.
DOCUMENT_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$")
#: Length of the version hash prefix written into ids.
VERSION_PREFIX_LENGTH = 12
_VERSION_PATTERN = re.compile(r"^[0-9a-f]{8,64}$")
_ID_IN_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]*@[0-9a-f]{8,64}#(?:c\d+|s\d+-\d+)")


def version_hash(text: str) -> str:
    """Return the version name of ``text``: the first 12 hex digits of its sha256.

    Examples
    --------
    >>> version_hash("hello")
    '2cf24dba5fb0'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:VERSION_PREFIX_LENGTH]


def check_document_id(document_id: str) -> str:
    """Return ``document_id`` if it is a valid, URL-safe document id, else raise.

    Raises
    ------
    EvidenceIdError
        The id is empty, too long, or uses characters outside ``[A-Za-z0-9._~-]``.
    """
    if not isinstance(document_id, str) or not DOCUMENT_ID_PATTERN.match(document_id):
        raise EvidenceIdError(
            f"document id {document_id!r} is not valid: use 1-200 characters from "
            "A-Z a-z 0-9 . _ ~ - and start with a letter or digit "
            "(for example 'babbage-life' or 'doc-7')"
        )
    return document_id


@dataclass(frozen=True, order=True)
class EvidenceId:
    """The name of a chunk or a character span in one version of one document."""

    document_id: str
    version: str
    chunk: int | None = None
    span: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        check_document_id(self.document_id)
        if not _VERSION_PATTERN.match(self.version):
            raise EvidenceIdError(
                f"version {self.version!r} is not valid: expected 8-64 lowercase hex digits"
            )
        if (self.chunk is None) == (self.span is None):
            raise EvidenceIdError("an evidence id names exactly one of a chunk or a span")
        if self.chunk is not None and self.chunk < 0:
            raise EvidenceIdError(f"chunk number {self.chunk} is negative")
        if self.span is not None:
            start, end = self.span
            if start < 0 or end < start:
                raise EvidenceIdError(
                    f"span {start}-{end} is not valid: need 0 <= start <= end"
                )

    @property
    def is_span(self) -> bool:
        """Whether this id names a character span rather than a chunk."""
        return self.span is not None

    def __str__(self) -> str:
        if self.span is not None:
            return f"{self.document_id}@{self.version}#s{self.span[0]}-{self.span[1]}"
        return f"{self.document_id}@{self.version}#c{self.chunk}"

    @classmethod
    def parse(cls, text: str) -> EvidenceId:
        """Parse ``doc@version#cN`` or ``doc@version#sA-B``.

        Raises
        ------
        EvidenceIdError
            With a message naming the part that is wrong.

        Examples
        --------
        >>> EvidenceId.parse("doc-7@3f9a1c2b0d4e#s120-480").span
        (120, 480)
        >>> EvidenceId.parse("doc-7#c1")
        Traceback (most recent call last):
        ...
        agrag_lab.errors.EvidenceIdError: evidence id 'doc-7#c1' has no '@': expected 'DOCUMENT@VERSION#cN' or 'DOCUMENT@VERSION#sSTART-END'
        """
        if not isinstance(text, str):
            raise EvidenceIdError(f"evidence id must be a string, not {type(text).__name__}")
        shape = "expected 'DOCUMENT@VERSION#cN' or 'DOCUMENT@VERSION#sSTART-END'"
        if text.count("@") != 1:
            what = "no '@'" if "@" not in text else "more than one '@'"
            raise EvidenceIdError(f"evidence id {text!r} has {what}: {shape}")
        document_id, rest = text.split("@")
        if rest.count("#") != 1:
            raise EvidenceIdError(
                f"evidence id {text!r} needs exactly one '#' after the version: {shape}"
            )
        version, locator = rest.split("#")
        if not document_id:
            raise EvidenceIdError(f"evidence id {text!r} has an empty document part: {shape}")
        if not DOCUMENT_ID_PATTERN.match(document_id):
            raise EvidenceIdError(
                f"evidence id {text!r}: document part {document_id!r} uses characters "
                "outside A-Z a-z 0-9 . _ ~ -"
            )
        if not _VERSION_PATTERN.match(version):
            raise EvidenceIdError(
                f"evidence id {text!r}: version part {version!r} must be 8-64 lowercase "
                "hex digits (a prefix of the version's sha256)"
            )
        if re.fullmatch(r"c\d{1,9}", locator):
            return cls(document_id, version, chunk=int(locator[1:]))
        match = re.fullmatch(r"s(\d{1,12})-(\d{1,12})", locator)
        if match:
            start, end = int(match.group(1)), int(match.group(2))
            if end < start:
                raise EvidenceIdError(
                    f"evidence id {text!r}: span end {end} is before its start {start}"
                )
            return cls(document_id, version, span=(start, end))
        raise EvidenceIdError(
            f"evidence id {text!r}: locator part {locator!r} must be 'cN' (a chunk) "
            "or 'sSTART-END' (a character span)"
        )


def find_evidence_ids(text: str) -> list[str]:
    """Return every string in ``text`` shaped like an evidence id, in order.

    Examples
    --------
    >>> find_evidence_ids("Babbage [doc-1@3f9a1c2b0d4e#c2] and [x@00000000#s1-5].")
    ['doc-1@3f9a1c2b0d4e#c2', 'x@00000000#s1-5']
    """
    return _ID_IN_TEXT.findall(text)
