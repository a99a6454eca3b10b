"""One exception tree for agrag_lab, with depth.

Every error derives from :class:`AgragError` and also from the builtin it
resembles (``ValueError``, ``KeyError``, ...), so callers catch at the level
they care about: one class, its family, the root, or the builtin. Every
message says what was wrong and how to fix it. The library never raises the
root itself or a bare builtin.

The tree (builtin in brackets)::

    AgragError
    ├── ArgumentError [ValueError]          a caller gave a bad value
    │   ├── EvidenceIdError                 a malformed evidence id
    │   ├── DocumentError                   a document that cannot be ingested
    │   ├── GraphSchemaError                a label or relation type not declared
    │   ├── KnowledgeGraphError             bad input to the knowledge-graph layer
    │   ├── RecipeError                     an invalid recipe (``problems`` per field)
    │   │   └── FusionError                 invalid fusion arguments (k, weights, convention)
    │   ├── UnknownRecipeMethodError        a recipe names an unregistered method
    │   ├── SearchArgumentError             a bad search call (empty query, depth < 1)
    │   ├── OptionError [argparse.ArgumentTypeError]  a bad command-line value (--limit, --chroma)
    │   ├── EvidenceArgumentError           a bad evidence-function argument
    │   │   ├── EvidenceTypeError [TypeError]
    │   │   └── ScopeArgumentError [argparse.ArgumentTypeError]  a bad --scope-where
    │   ├── AgentArgumentError              a bad agent argument
    │   ├── ToolArgumentError               a bad tool call
    │   ├── DatasetError                    a malformed benchmark or dataset
    │   ├── ImportSourceError               not a readable GraphRAG output or GraphML file
    │   │   └── ImportLimitError            a source past a size limit (rows, description, bytes)
    │   ├── EvaluationError                 an evaluation that cannot run as asked
    │   └── ViewArgumentError               a bad argument to a widget or chart
    │       └── ExplorerError               an impossible GraphExplorer view
    ├── NotFoundError [KeyError]            an id names nothing visible
    │   ├── NoSuchResultError [IndexError]  a result position past the end
    │   └── UnknownSessionError             an MCP session handle names no live session
    ├── StoreError [RuntimeError]           an index folder or store failed
    │   ├── IndexLockedError                another process is writing
    │   ├── IndexFormatError                damaged, incomplete or read-only
    │   ├── DiskWriteError                  the disk is full, or a write failed (I/O error)
    │   ├── ImportConflictError             an import into a folder holding other documents
    │   ├── VectorStoreError                Chroma failed or is unreachable
    │   ├── GraphServerError                the FalkorDB graph server failed or is unreachable
    │   └── MissingCapabilityError [TypeError]  a store lacks a capability a method or view needs
    ├── ModelError [RuntimeError]           a model cannot be loaded or run
    │   ├── EmbedderError
    │   ├── RerankerError
    │   └── LLMError                        the chat endpoint failed
    │       └── StructuredOutputError       invalid JSON twice
    ├── AllRetrievalMethodsFailedError [RuntimeError]
    ├── RetrievalMethodError [RuntimeError] every leg of one method failed (its other methods may answer)
    ├── SearchTimeoutError [TimeoutError]   a search ran past its whole-run deadline (``step`` names where)
    ├── ServiceError [RuntimeError]         a process we start did not come up (JupyterLab)
    ├── MissingExtraError [ImportError]     an optional extra is not installed (``pip install agrag_lab[lab]``)
    └── ScopeDeniedError [PermissionError]  outside the caller's scope

Sub-packages re-export their own (``agrag_lab.kg.errors``,
``agrag_lab.evidence.errors``, ``agrag_lab.agent.errors``,
``agrag_lab.evidence.scope``, ``agrag_lab.mcp.sessions``).

Examples
--------
>>> from agrag_lab.errors import AgragError, ArgumentError, EvidenceIdError, FusionError, RecipeError
>>> issubclass(EvidenceIdError, ArgumentError) and issubclass(EvidenceIdError, ValueError)
True
>>> issubclass(FusionError, RecipeError) and issubclass(FusionError, AgragError)
True
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

__all__ = [
    "AgentArgumentError",
    "AgragError",
    "AllRetrievalMethodsFailedError",
    "ArgumentError",
    "DatasetError",
    "DiskWriteError",
    "DocumentError",
    "EditConflictError",
    "EmbedderError",
    "EvaluationError",
    "EvidenceArgumentError",
    "EvidenceIdError",
    "EvidenceTypeError",
    "ExplorerError",
    "FusionError",
    "GraphSchemaError",
    "GraphServerError",
    "ImportConflictError",
    "ImportLimitError",
    "ImportSourceError",
    "IndexFormatError",
    "IndexLockedError",
    "KnowledgeGraphError",
    "LLMError",
    "MissingCapabilityError",
    "ModelError",
    "NoSuchResultError",
    "NotFoundError",
    "RecipeError",
    "RerankerError",
    "RetrievalMethodError",
    "ScopeArgumentError",
    "ScopeDeniedError",
    "SearchArgumentError",
    "SearchTimeoutError",
    "ServiceError",
    "StoreError",
    "StructuredOutputError",
    "ToolArgumentError",
    "UnknownRecipeMethodError",
    "UnknownSessionError",
    "VectorStoreError",
    "ViewArgumentError",
]


class AgragError(Exception):
    """Root of every error raised by agrag_lab (never raised itself)."""


# -- bad arguments ----------------------------------------------------------------------


class ArgumentError(AgragError, ValueError):
    """A caller gave a value agrag_lab cannot use; the message names it and the fix."""


class EvidenceIdError(ArgumentError):
    """An evidence id string is malformed; the message names the bad part."""


class DocumentError(ArgumentError):
    """A document (or a file to be read as one) cannot be ingested."""


class GraphSchemaError(ArgumentError):
    """A label or relation type is not declared by the graph schema."""


class KnowledgeGraphError(ArgumentError):
    """Input to the knowledge-graph layer is invalid.

    Raised for malformed given facts (``metadata["entities"]``/``["relations"]``),
    duplicate chunk ids handed to the builder, and out-of-range query arguments
    (a negative depth or limit). The message names the bad value and the fix.
    """


class EditConflictError(KnowledgeGraphError):
    """A curation edit does not apply to the graph it meets (its entity or relation is gone, or it changes
    nothing); the message says why and what to do (:mod:`agrag_lab.kg.edits`)."""


class RecipeError(ArgumentError):
    """A recipe is invalid. ``problems`` maps each field to a hint."""

    def __init__(self, problems: Mapping[str, str], name: str = "recipe") -> None:
        self.problems = dict(problems)
        lines = [f"{name} is invalid ({len(self.problems)} problem(s)):"]
        lines += [f"  - {field}: {hint}" for field, hint in self.problems.items()]
        super().__init__("\n".join(lines))


class FusionError(RecipeError):
    """Fusion arguments are invalid (``k``, a weight, the convention); ``problems`` maps each to a hint.

    A :class:`RecipeError` too: a recipe's fusion fields are checked by the same rules.
    """

    def __init__(self, problems: Mapping[str, str], name: str = "rrf") -> None:
        super().__init__(problems, name)


class UnknownRecipeMethodError(ArgumentError):
    """A recipe names a method that is not in the retriever registry."""


class SearchArgumentError(ArgumentError):
    """A search call is invalid (an empty query, a depth or limit below 1, mismatched labels)."""


class OptionError(ArgumentError, argparse.ArgumentTypeError):
    """A command-line value is out of range or malformed (``--limit``, ``--chroma``, ``--session-idle-timeout``);
    argparse reports it as a usage error, a caller of the parsing function gets an :class:`ArgumentError`."""


class EvidenceArgumentError(ArgumentError):
    """An argument of an evidence function is invalid; the message names the fix."""


class EvidenceTypeError(EvidenceArgumentError, TypeError):
    """An argument of an evidence function has the wrong type (e.g. an answer that is not a string)."""


class ScopeArgumentError(EvidenceArgumentError, argparse.ArgumentTypeError):
    """A ``--scope-where`` value is not ``KEY=VALUE``; argparse reports it as a usage error."""


class AgentArgumentError(ArgumentError):
    """An argument of the agent is invalid (a blank question, a missing endpoint)."""


class ToolArgumentError(ArgumentError):
    """A tool call names an unknown tool or gives invalid arguments; the message says which and why."""


class DatasetError(ArgumentError):
    """A benchmark or dataset file is missing, malformed or inconsistent."""


class ImportSourceError(ArgumentError):
    """The folder or file to import is not a readable GraphRAG output or GraphML graph.

    The message names the file and the column (or node, edge) that is wrong,
    and what was expected.
    """


class ImportLimitError(ImportSourceError):
    """A source to import is past a size limit (rows, description, bytes); the message names the limit,
    the value found, and the option that raises it (``--max-rows``, ``--max-description``, ``--max-bytes``)."""


class EvaluationError(ArgumentError):
    """An evaluation cannot run as asked (no judged queries, an unknown test or metric or reference)."""


class ViewArgumentError(ArgumentError):
    """A widget or chart was given something it cannot show (no recipes, no seed, a bad weight)."""


class ExplorerError(ViewArgumentError):
    """The graph explorer was asked for an impossible view (two parts at once, a depth below 1, an unknown colouring).

    An unknown community, document or entity raises :class:`NotFoundError`.
    """


# -- not found ----------------------------------------------------------------------------


class NotFoundError(AgragError, KeyError):
    """An id names nothing visible (it does not exist, or lies outside the scope)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class NoSuchResultError(NotFoundError, IndexError):
    """A result position past the end of a run (``IndexError`` too, as for a list)."""


class UnknownSessionError(NotFoundError):
    """A session handle names no live evidence session (never minted, or forgotten)."""


# -- stores and models ----------------------------------------------------------------------


class StoreError(AgragError, RuntimeError):
    """An index folder or one of its stores cannot be used as asked."""


class IndexLockedError(StoreError):
    """Another process holds the index folder open for writing."""


class IndexFormatError(StoreError):
    """The index folder is damaged, incomplete, read-only, or was written by an incompatible version."""


class DiskWriteError(StoreError):
    """A write failed because the disk is full, a file-size limit was reached, or the device reported an I/O error."""


class ImportConflictError(StoreError):
    """The index folder already holds other documents; an import needs a folder of its own."""


class VectorStoreError(StoreError):
    """The vector store (local Chroma or a Chroma server) failed or is unreachable."""


class GraphServerError(StoreError):
    """The graph server (FalkorDB) failed, is unreachable, or holds another graph than asked."""


class MissingCapabilityError(StoreError, TypeError):
    """A store lacks a capability a retrieval method or a view requires (e.g. the whole graph in process).

    ``capability`` names it, ``store`` the store's type and ``wanted_by`` who asked; the
    message says how to get a store that has it.
    """

    def __init__(self, capability: str, store: str, wanted_by: str, fix: str) -> None:
        self.capability = capability
        self.store = store
        self.wanted_by = wanted_by
        super().__init__(f"{wanted_by} requires the {capability!r} capability, which {store} has not: {fix}")


class ModelError(AgragError, RuntimeError):
    """A model (embedder, re-ranker, chat endpoint) cannot be loaded or used."""


class EmbedderError(ModelError):
    """The embedding model cannot be loaded or used."""


class RerankerError(ModelError):
    """A re-ranker cannot be loaded or run."""


class LLMError(ModelError):
    """The chat endpoint failed, is unreachable, or answered something that is not a chat completion."""


class StructuredOutputError(LLMError):
    """The model answered twice with JSON that does not fit the schema; ``errors`` holds both reasons."""

    def __init__(self, message: str, errors: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.errors = tuple(errors)


# -- running ------------------------------------------------------------------------------


class AllRetrievalMethodsFailedError(AgragError, RuntimeError):
    """Every method a recipe names failed; ``causes`` maps method to exception."""

    def __init__(self, causes: Mapping[str, BaseException]) -> None:
        self.causes = dict(causes)
        detail = "; ".join(f"{m}: {type(e).__name__}: {e}" for m, e in self.causes.items())
        legs = [leg for e in self.causes.values()
                for leg in (e, *(e.causes.values() if isinstance(e, RetrievalMethodError) else ()))]
        if any(isinstance(e, VectorStoreError) for e in legs):  # a method's own error, or one of its legs
            hint = "The vector store failed: its message above says how to fix it."
        else:
            hint = "Check that the index was built with Graph.open and that its collections exist."
        super().__init__(f"every retrieval method failed ({detail}). {hint}")


class RetrievalMethodError(AgragError, RuntimeError):
    """Every leg of one retrieval method failed; ``causes`` maps leg (``dense``, ``keyword``) to exception."""

    def __init__(self, method: str, causes: Mapping[str, BaseException]) -> None:
        self.method = method
        self.causes = dict(causes)
        detail = "; ".join(f"the {leg} leg: {type(e).__name__}: {e}" for leg, e in self.causes.items())
        super().__init__(f"every leg of the {method!r} method failed ({detail})")


class SearchTimeoutError(AgragError, TimeoutError):
    """A search ran past its whole-run deadline; ``step`` names the step that was running."""

    def __init__(self, step: str, seconds: float) -> None:
        self.step = step
        self.seconds = seconds
        super().__init__(
            f"the search ran out of its {seconds:g} s deadline in the {step} step; lower the recipe's "
            "candidates, walk.limit or walk.depth, raise walk.restart, or raise RETRIEVAL_RUN_TIMEOUT"
        )


class ServiceError(AgragError, RuntimeError):
    """A process agrag_lab starts (JupyterLab) exited or did not answer in time."""


class MissingExtraError(AgragError, ImportError):
    """A feature's optional extra is not installed; the message names it (``pip install 'agrag_lab[lab]'``)."""


class ScopeDeniedError(AgragError, PermissionError):
    """A request asks for something the caller's scope does not permit."""
