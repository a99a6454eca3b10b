"""Evidence ids: format, round trip, and a clear error per malformed part."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agrag_lab.errors import EvidenceIdError
from agrag_lab.ids import EvidenceId, find_evidence_ids, version_hash


def test_chunk_and_span_ids_print_and_parse() -> None:
    chunk = EvidenceId("doc-7", "3f9a1c2b0d4e", chunk=12)
    span = EvidenceId("doc-7", "3f9a1c2b0d4e", span=(120, 480))
    assert str(chunk) == "doc-7@3f9a1c2b0d4e#c12"
    assert str(span) == "doc-7@3f9a1c2b0d4e#s120-480"
    assert EvidenceId.parse(str(chunk)) == chunk
    assert EvidenceId.parse(str(span)) == span


@given(
    doc=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,30}", fullmatch=True),
    version=st.from_regex(r"[0-9a-f]{12}", fullmatch=True),
    chunk=st.integers(0, 10_000),
    start=st.integers(0, 10_000),
    length=st.integers(0, 10_000),
    use_span=st.booleans(),
)
def test_parse_of_str_is_identity(doc: str, version: str, chunk: int, start: int, length: int, use_span: bool) -> None:
    x = EvidenceId(doc, version, span=(start, start + length)) if use_span else EvidenceId(doc, version, chunk=chunk)
    assert EvidenceId.parse(str(x)) == x


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("doc-7#c1", "no '@'"),
        ("a@b@c#c1", "more than one '@'"),
        ("doc@3f9a1c2b0d4e", "exactly one '#'"),
        ("@3f9a1c2b0d4e#c1", "empty document part"),
        ("do c@3f9a1c2b0d4e#c1", "document part"),
        ("doc@XYZ#c1", "version part"),
        ("doc@3f9a1c2b0d4e#x1", "locator part"),
        ("doc@3f9a1c2b0d4e#s9-3", "before its start"),
        ("doc@3f9a1c2b0d4e#c", "locator part"),
    ],
)
def test_malformed_ids_name_the_bad_part(text: str, part: str) -> None:
    with pytest.raises(EvidenceIdError, match=part):
        EvidenceId.parse(text)


def test_non_string_is_rejected() -> None:
    with pytest.raises(EvidenceIdError, match="must be a string"):
        EvidenceId.parse(12)  # type: ignore[arg-type]


def test_find_ids_in_answer_text() -> None:
    answer = "Lovelace wrote Note G [ada@0123456789ab#c3], see also (x-1@abcdef012345#s0-10)."
    assert find_evidence_ids(answer) == ["ada@0123456789ab#c3", "x-1@abcdef012345#s0-10"]


def test_version_hash_is_a_sha256_prefix() -> None:
    assert version_hash("hello") == "2cf24dba5fb0"
    assert len(version_hash("x" * 1000)) == 12
