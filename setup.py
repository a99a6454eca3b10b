"""Ships the checkout's ``recipes/`` folder inside the package (``agrag_lab/recipes/files/``).

``recipes/*.toml`` (the built-ins, ``examples/`` and ``peers/``) is where the
recipes are written and read in a checkout; a wheel or a non-editable install
has no checkout, so the build copies the folder into the package, where
:mod:`agrag_lab.recipes.builtins` finds it with :mod:`importlib.resources`.
Everything else is in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RECIPES = Path(__file__).resolve().parent / "recipes"


class BuildWithRecipes(build_py):  # type: ignore[misc]
    """``build_py`` that also copies ``recipes/`` into the built package (an editable install reads the checkout)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False) or not RECIPES.is_dir():
            return
        target = Path(self.build_lib) / "agrag_lab" / "recipes" / "files"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(RECIPES, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithRecipes})
