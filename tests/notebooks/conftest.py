"""The notebooks' indexes and kernel environment are the session fixtures of ``tests/conftest.py``
(``musique_lab_path``, ``carol_lab_path``, ``notebook_env``), shared with the browser tests."""

#: --doctest-modules would import this file as a module named "conftest", which clashes with
#: the other conftest.py files of tests/ (not packages); pytest loads it as a plugin anyway.
collect_ignore = ["conftest.py"]
