"""Entity and relation extraction by an LLM, through the shared OpenAI-compatible client.

:class:`LLMExtractor` implements :class:`~agrag_lab.kg.extract.extraction.Extractor`:
it asks the model for typed entities with descriptions and for relationships
with a description and a strength (1-10), as JSON validated by pydantic
(:class:`ChunkGraph`). The entity types and relation types offered are the
graph schema's. An invalid answer is shown to the model with its validation
error once; a second invalid answer, or an endpoint failure, leaves the
chunk with an :class:`~agrag_lab.kg.extract.extraction.Extraction` whose ``failure``
says why (never a silent empty extraction) and the chunk id in
:attr:`LLMExtractor.failures`. Answers are cached by model, prompt version
and chunk content (:class:`~agrag_lab.llm.cache.ResponseCache`), so a
re-ingest makes no call. :meth:`LLMExtractor.extract_many` runs chunks
concurrently (``settings.concurrency`` at once) with a tqdm progress bar.

Examples
--------
>>> from agrag_lab.llm import LLMSettings
>>> x = LLMExtractor(LLMSettings("http://127.0.0.1:9/v1", "qwen3"))
>>> x.version.startswith("llm-extract-1;model=qwen3;schema=")
True
>>> print(x.messages(Chunk("d", "v", 0, "Ada met Babbage.", 0, 16, "paragraph", 0, ()), DocumentContext("d", "Ada"))[1]["content"])
Document: Ada
<BLANKLINE>
Ada met Babbage.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from pydantic import BaseModel, Field, field_validator
from pydantic_core import PydanticCustomError

from agrag_lab.documents import Chunk
from agrag_lab.errors import LLMError
from agrag_lab.kg.extract.extraction import (
    DocumentContext,
    EntityMention,
    Extraction,
    RelationMention,
    with_given_facts,
)
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.llm.batch import LLMWorker, Progress

__all__ = ["PROMPT_VERSION", "ChunkGraph", "ExtractedEntity", "ExtractedRelationship", "LLMExtractor"]

#: Bump when the prompt or the answer schema changes: cached answers become stale.
PROMPT_VERSION = "llm-extract-1"


class ExtractedEntity(BaseModel):
    """One entity as the model names it."""

    name: str = Field(min_length=1, max_length=200)
    type: str = Field(min_length=1)
    description: str = ""

    @field_validator("name")
    @classmethod
    def _stripped(cls, value: str) -> str:
        if not value.strip():
            raise PydanticCustomError("blank_name", "an entity name must not be blank")
        return value.strip()


class ExtractedRelationship(BaseModel):
    """One relationship between two named entities."""

    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    type: str = "RELATED_TO"
    description: str = ""
    strength: float = Field(ge=0, le=10)


class ChunkGraph(BaseModel):
    """The answer for one chunk."""

    entities: list[ExtractedEntity]
    relationships: list[ExtractedRelationship] = []


def _system_prompt(schema: GraphSchema) -> str:
    labels = ", ".join(lab for lab in schema.entity_labels if lab != schema.default_label)
    types = ", ".join(schema.relation_types)
    return (
        "You extract a knowledge graph from one passage of a document.\n"
        f"Entity types: {labels}; use {schema.default_label} for a named thing of no other type.\n"
        f"Relationship types: {types}.\n"
        "Name every person, place, organization, work, machine, event and concept the passage names, "
        "as written in the passage (full names), with its type and a one-sentence description from the "
        "passage. Relate the entities the passage relates: source and target are entity names from your "
        "list, a type from the list, a one-sentence description, and a strength from 1 (weak) to 10 (strong).\n"
        'Answer with one JSON object only: {"entities": [{"name": str, "type": str, "description": str}], '
        '"relationships": [{"source": str, "target": str, "type": str, "description": str, "strength": number}]}'
    )


def _offsets(text: str, name: str) -> tuple[int, int]:
    at = text.casefold().find(name.casefold())
    return (at, at + len(name)) if at >= 0 else (-1, -1)


@dataclass(kw_only=True)
class LLMExtractor(LLMWorker):
    """Extracts entities and relationships with a chat model (see the module docstring).

    The endpoint, cache, shared client and progress are :class:`~agrag_lab.llm.batch.LLMWorker`'s
    (``settings``, ``cache_dir``, ``client``, ``progress``; chunk ids in :attr:`failures`).

    Parameters
    ----------
    schema : GraphSchema
        Entity and relation types offered to the model; answers are normalised with it.
    max_chars : int
        Longer chunks are cut before they are sent.

    Raises
    ------
    LLMError
        No settings given and ``AGRAG_LLM_BASE_URL`` is not set.
    """

    schema: GraphSchema = GENERIC
    max_chars: int = 6000

    needs: ClassVar[str] = "LLM extraction"

    def __post_init__(self) -> None:
        super().__post_init__()
        self._system = _system_prompt(self.schema)

    @property
    def version(self) -> str:
        """Cache key: prompt version, model, and the schema the prompt offers."""
        digest = hashlib.sha256(self._system.encode("utf-8")).hexdigest()[:10]
        return f"{PROMPT_VERSION};model={self._settings.model};schema={digest}"

    def messages(self, chunk: Chunk, document: DocumentContext) -> list[dict[str, str]]:
        """The chat messages for one chunk."""
        body = chunk.text[: self.max_chars]
        title = f"Document: {document.title}\n\n" if document.title else ""
        return [{"role": "system", "content": self._system}, {"role": "user", "content": f"{title}{body}"}]

    def extract(self, chunk: Chunk, document: DocumentContext) -> Extraction:
        """Extract one chunk; a failure is recorded (:attr:`failures`, ``Extraction.failure``), not raised."""
        try:
            answer = self.ask(self.messages(chunk, document), ChunkGraph, self.version)
        except LLMError as exc:
            return with_given_facts(chunk, document, Extraction(failure=self.fail(chunk.id, exc)), self.schema)
        return with_given_facts(chunk, document, self._to_extraction(chunk, answer), self.schema)

    def extract_many(
        self,
        items: Sequence[tuple[Chunk, DocumentContext]],
        progress: Progress | None = None,
    ) -> list[Extraction]:
        """Extract chunks concurrently (``settings.concurrency`` at once), in input order.

        ``progress(iterable, total, description)`` wraps the completions, e.g. tqdm.
        """
        return self.run_all(lambda pair: self.extract(*pair), items, progress, "LLM extraction")

    def _to_extraction(self, chunk: Chunk, answer: ChunkGraph) -> Extraction:
        text = chunk.text
        entities = []
        seen: set[str] = set()
        for e in answer.entities:
            if e.name.casefold() in seen:
                continue
            seen.add(e.name.casefold())
            start, end = _offsets(text, e.name)
            entities.append(
                EntityMention(e.name, self.schema.normalise_label(e.type), chunk.id, start, end, e.description.strip())
            )
        relations = [
            RelationMention(
                r.source.strip(),
                r.target.strip(),
                self.schema.normalise_relation_type(r.type),
                chunk.id,
                r.description.strip(),
                r.description.strip(),
                r.strength,
            )
            for r in answer.relationships
            if r.source.strip().casefold() != r.target.strip().casefold()
        ]
        return Extraction(tuple(entities), tuple(relations))
