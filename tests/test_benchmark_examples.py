"""The Examples in the docstrings of the benchmark modules run, as the library's do (``--doctest-modules``
reads ``agrag_lab`` only: ``benchmarks/`` is left out of collection by the top-level conftest)."""

from __future__ import annotations

import doctest
import importlib

import pytest

#: The benchmark modules whose docstrings hold Examples.
WITH_EXAMPLES = ("benchmarks.agent", "benchmarks.benchmarks_md", "benchmarks.evidence", "benchmarks.import_speed",
                 "benchmarks.linear_graph", "benchmarks.scale_report", "benchmarks.timing", "benchmarks.workbench")


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_examples_of_a_benchmark_module_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no Examples left: drop it from WITH_EXAMPLES"
    assert result.failed == 0
