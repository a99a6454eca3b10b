"""One exception hierarchy for agrag_lab.

Every error derives from :class:`AgragError` and also from the builtin it
resembles (``ValueError``, ``KeyError``, ...), so callers can catch either.
Every message says what was wrong and how to fix it.

Examples
--------
>>> from agrag_lab.errors import AgragError, EvidenceIdError
>>> issubclass(EvidenceIdError, AgragError) and issubclass(EvidenceIdError, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Mapping


class AgragError(Exception):
    """Root of every error raised by agrag_lab."""


class EvidenceIdError(AgragError, ValueError):
    """An evidence id string is malformed; the message names the bad part."""


class DocumentError(AgragError, ValueError):
    """A document (or a file to be read as one) cannot be ingested."""


class IndexLockedError(AgragError, RuntimeError):
    """Another process holds the index folder open for writing."""


class IndexFormatError(AgragError, RuntimeError):
    """The index folder is damaged or was written by an incompatible version."""


class VectorStoreError(AgragError, RuntimeError):
    """The vector store (local Chroma or a Chroma server) failed or is unreachable."""


class EmbedderError(AgragError, RuntimeError):
    """The embedding model cannot be loaded or used."""


class NotFoundError(AgragError, KeyError):
    """An id names nothing visible (it does not exist, or lies outside the scope)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class GraphSchemaError(AgragError, ValueError):
    """A label or relation type is not declared by the graph schema."""


class RecipeError(AgragError, ValueError):
    """A recipe is invalid. ``problems`` maps each field to a hint."""

    def __init__(self, problems: Mapping[str, str], name: str = "recipe") -> None:
        self.problems = dict(problems)
        lines = [f"{name} is invalid ({len(self.problems)} problem(s)):"]
        lines += [f"  - {field}: {hint}" for field, hint in self.problems.items()]
        super().__init__("\n".join(lines))


class UnknownRecipeMethodError(AgragError, ValueError):
    """A recipe names a method that is not in the retriever registry."""


class AllRetrievalMethodsFailedError(AgragError, RuntimeError):
    """Every method a recipe names failed; ``causes`` maps method to exception."""

    def __init__(self, causes: Mapping[str, BaseException]) -> None:
        self.causes = dict(causes)
        detail = "; ".join(f"{m}: {type(e).__name__}: {e}" for m, e in self.causes.items())
        super().__init__(
            f"every retrieval method failed ({detail}). Check that the index was built "
            "with Graph.open and that its collections exist."
        )


class ScopeDeniedError(AgragError, PermissionError):
    """A request asks for something the caller's scope does not permit."""


class RerankerError(AgragError, RuntimeError):
    """A re-ranker cannot be loaded or run."""


class DatasetError(AgragError, ValueError):
    """A benchmark or dataset file is missing, malformed or inconsistent."""


class LLMError(AgragError, RuntimeError):
    """The chat endpoint failed, is unreachable, or answered something that is not a chat completion."""
