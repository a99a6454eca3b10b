"""The embedding model a GraphRAG output was built with, read from the ``settings.yaml`` beside it.

GraphRAG 3.x names it under ``embedding_models.<id>`` (``model``, ``api_base``); 1.x and 2.x under
``embeddings.llm`` (``model``, ``api_base``) or ``models.default_embedding_model``. The output folder
is usually ``<project>/output``, so both the folder and its parent are looked in. The key is never read.

Examples
--------
>>> builder_embedding_of({"embedding_models": {"default_embedding_model": {"model": "m", "api_base": "http://h/v1"}}})
BuilderEmbedding(model='m', url='http://h/v1')
>>> builder_embedding_of({})
BuilderEmbedding(model='', url='')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BuilderEmbedding", "builder_embedding", "builder_embedding_of"]

SETTINGS = ("settings.yaml", "settings.yml")


@dataclass(frozen=True)
class BuilderEmbedding:
    """The builder's embedding model and endpoint (``""``: not said)."""

    model: str = ""
    url: str = ""


def _section(settings: Mapping[str, Any]) -> Mapping[str, Any]:
    for path in (("embedding_models",), ("models",)):
        models = settings.get(path[0])
        if isinstance(models, Mapping):
            for key, value in models.items():
                if isinstance(value, Mapping) and ("embedding" in str(key) or path[0] == "embedding_models"):
                    return value
    llm = (settings.get("embeddings") or {}).get("llm") if isinstance(settings.get("embeddings"), Mapping) else None
    return llm if isinstance(llm, Mapping) else {}


def builder_embedding_of(settings: Mapping[str, Any]) -> BuilderEmbedding:
    """The embedding model and endpoint a parsed ``settings.yaml`` names."""
    section = _section(settings)
    return BuilderEmbedding(str(section.get("model") or ""), str(section.get("api_base") or ""))


def builder_embedding(output: Path) -> BuilderEmbedding:
    """What the ``settings.yaml`` in ``output`` or its parent says (empty when there is none)."""
    import yaml

    for folder in (output, output.parent):
        for name in SETTINGS:
            if (folder / name).is_file():
                try:
                    data = yaml.safe_load((folder / name).read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError, yaml.YAMLError):
                    return BuilderEmbedding()
                return builder_embedding_of(data if isinstance(data, Mapping) else {})
    return BuilderEmbedding()
