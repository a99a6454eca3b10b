"""The bm25s keyword index: quiet builds and stemmed search."""

from __future__ import annotations

import logging

import pytest

from agrag_lab.storage.keyword import KeywordIndex


def test_build_logs_nothing_below_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    index = KeywordIndex.build(["a", "b"], ["looms weave cloth", "engines compute numbers"])
    assert [k for k, _ in index.search("loom", 2)] == ["a"]
    assert not [r for r in caplog.records if r.name.startswith("bm25s")]
