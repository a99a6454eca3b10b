"""Repository-level pytest settings.

``--doctest-modules`` (see pyproject) would otherwise import every
``conftest.py`` under tests/ as a doctest module named ``conftest`` and clash;
they hold no doctests, so they are left out of doctest collection (pytest
still loads them as conftests).
"""

collect_ignore_glob = ["tests/conftest.py", "tests/*/conftest.py", "notebooks/*", "benchmarks/*", "build/*"]
