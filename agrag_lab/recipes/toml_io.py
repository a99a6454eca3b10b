"""Recipe TOML: reading and writing the text and files, with the size and nesting limits.

The recipe schema (:mod:`agrag_lab.recipes.schema`) turns the parsed data into
a :class:`~agrag_lab.recipes.schema.Recipe` and back; this module only moves
TOML text between data, strings and files, and refuses what no recipe can be.

Examples
--------
>>> loads('name = "X"\\nmethods = ["chunk"]')
{'name': 'X', 'methods': ['chunk']}
>>> dumps({"name": "X"}).splitlines()
['# agrag_lab recipe; the fields are explained in recipes/README.md', 'name = "X"']
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from agrag_lab.errors import RecipeError
from agrag_lab.limits import MAX_RECIPE_BYTES, MAX_RECIPE_NESTING

__all__ = ["HEADER", "dumps", "loads", "read", "write"]

#: The first line of every recipe file written.
HEADER = "# agrag_lab recipe; the fields are explained in recipes/README.md\n"


def dumps(data: dict[str, Any]) -> str:
    """``data`` (a recipe's ``to_dict``, without ``None`` values) as TOML, under :data:`HEADER`."""
    import tomli_w  # here: only saving a recipe writes TOML (every search reads the built-ins)

    return HEADER + tomli_w.dumps(data)


def loads(text: str) -> dict[str, Any]:
    """Parse recipe TOML text.

    Raises
    ------
    RecipeError
        The text is not valid TOML, is larger than
        :data:`~agrag_lab.limits.MAX_RECIPE_BYTES`, or nests tables or arrays
        deeper than :data:`~agrag_lab.limits.MAX_RECIPE_NESTING`.
    """
    if len(text) > MAX_RECIPE_BYTES:
        raise RecipeError({"toml": (
            f"is {len(text):,} characters, more than the {MAX_RECIPE_BYTES:,} a recipe may have; "
            "a recipe is a few hundred bytes: is this the right file?"
        )})
    deep = {"toml": (
        f"nests tables or arrays deeper than {MAX_RECIPE_NESTING} levels; "
        "a recipe needs 2 (e.g. [fusion.weights])"
    )}
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RecipeError(
            {
                "toml": f"not valid TOML ({error}); check quotes and [section] headers"
            }
        ) from None
    except RecursionError:  # deeper than Python's stack allows the parser
        raise RecipeError(deep) from None
    if _nesting(data) > MAX_RECIPE_NESTING:
        raise RecipeError(deep)
    return data


def write(path: str | os.PathLike[str], text: str) -> Path:
    """Write recipe TOML ``text`` to ``path`` (parents are created) and return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def read(path: str | os.PathLike[str]) -> str:
    """The text of a recipe file.

    Raises
    ------
    RecipeError
        The file is missing, unreadable, larger than a recipe may be, or not UTF-8.
    """
    target = Path(path)
    try:
        size = target.stat().st_size
        if size > MAX_RECIPE_BYTES:
            raise RecipeError({"path": (
                f"{str(target)!r} is {size:,} bytes, more than the {MAX_RECIPE_BYTES:,} a recipe may have; "
                "a recipe is a few hundred bytes: is this the right file?"
            )}, name=target.name)
        return target.read_bytes().decode("utf-8")
    except OSError as error:
        raise RecipeError(
            {"path": f"cannot read {str(target)!r} ({error.strerror or error})"},
            name=target.name,
        ) from None
    except UnicodeDecodeError as error:
        raise RecipeError(
            {"path": (
                f"{str(target)!r} is not UTF-8 text (byte {error.object[error.start]:#04x} at offset "
                f"{error.start}); TOML files are UTF-8: save it as UTF-8"
            )},
            name=target.name,
        ) from None


def _nesting(value: object) -> int:
    """How deep tables and arrays nest in parsed TOML (the top table is 0), without recursion.

    Stops looking once past :data:`~agrag_lab.limits.MAX_RECIPE_NESTING`.
    """
    deepest, todo = 0, [(value, 0)]
    while todo and deepest <= MAX_RECIPE_NESTING:
        item, level = todo.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        todo.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest
