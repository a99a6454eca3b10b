"""Turn frozen dataclasses into JSON-safe data and back, driven by their type hints.

Used by the search trace so ``SearchRun.to_dict()`` round-trips exactly.

Examples
--------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class P:
...     name: str
...     tags: tuple[str, ...] = ()
>>> to_data(P("a", ("x",)))
{'name': 'a', 'tags': ['x']}
>>> from_data(P, {"name": "a", "tags": ["x"]})
P(name='a', tags=('x',))
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any


def to_data(obj: Any) -> Any:
    """JSON-safe copy: dataclasses become dicts, tuples lists, mappings dicts."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_data(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): to_data(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, frozenset, set)):
        items = sorted(obj) if isinstance(obj, (set, frozenset)) else obj
        return [to_data(v) for v in items]
    return obj


@cache
def _hints(cls: type) -> dict[str, Any]:
    module = sys.modules[cls.__module__]
    return typing.get_type_hints(cls, vars(module))


def from_data(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from :func:`to_data` output."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return data
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        non_none = [a for a in args if a is not type(None)]
        if len(non_none) == 1:
            return from_data(non_none[0], data)
        for a in non_none:  # scalar unions: keep the value as it is
            if isinstance(a, type) and isinstance(data, a):
                return data
        return data
    if origin is typing.Literal:
        return data
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = _hints(tp)
        kwargs = {f.name: from_data(hints[f.name], data[f.name]) for f in dataclasses.fields(tp) if f.name in data}
        return tp(**kwargs)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_data(args[0], v) for v in data)
        return tuple(from_data(a, v) for a, v in zip(args, data, strict=True))
    if origin in (frozenset, set):
        return frozenset(from_data(args[0], v) for v in data)
    if origin in (dict, Mapping) or (origin is not None and issubclass(origin, Mapping)):
        return types.MappingProxyType({k: from_data(args[1], v) for k, v in data.items()})
    if origin is list:
        return [from_data(args[0], v) for v in data]
    if tp is float and isinstance(data, int):
        return float(data)
    return data
