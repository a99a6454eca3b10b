"""Community reports written by an LLM, in the shape of GraphRAG's reports.

:class:`LLMReporter` implements :class:`~agrag_lab.kg.reports.CommunityReporter`.
For each community it shows the model the members (name, label,
description), the best-supported relations and the text of the chunks that
support them (each under its chunk id), and asks for a JSON report
(:class:`WrittenReport`): a title, a summary, findings that each cite the
chunk ids supporting them (validated: only ids it was shown), and an impact
rating with its explanation. The result is a
:class:`~agrag_lab.kg.reports.CommunityReport` with the fields an imported
GraphRAG report has (``full_content``, ``findings``, ``rating``,
``rating_explanation``), so THEMATIC and the community step read the same
fields from every reporter; a finding's explanation ends with
``[Data: Sources (chunk ids)]`` as GraphRAG's cite their data.

A community the model cannot report on (invalid JSON twice, endpoint down)
gets the extractive report and its id in :attr:`LLMReporter.failures`.
Answers are cached by model, prompt version and prompt content.

Examples
--------
>>> from agrag_lab.llm import LLMSettings
>>> LLMReporter(LLMSettings("http://127.0.0.1:9/v1", "qwen3")).version
'llm-report-1;model=qwen3'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from pydantic import BaseModel, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from agrag_lab.errors import LLMError
from agrag_lab.kg.communities import Community
from agrag_lab.kg.extract.reports import ExtractiveReporter
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.reports import ChunkText, CommunityReport
from agrag_lab.kg.text import natural_key, trim_text
from agrag_lab.llm.batch import LLMWorker, Progress

__all__ = ["REPORT_PROMPT_VERSION", "LLMReporter", "WrittenFinding", "WrittenReport"]

#: Bump when the prompt or the answer schema changes.
REPORT_PROMPT_VERSION = "llm-report-1"

_SYSTEM = (
    "You write a report on one community of a knowledge graph, for a researcher. Use only the entities, "
    "relationships and sources given. Answer with one JSON object only: "
    '{"title": str (a short name of the community, naming its key entities), '
    '"summary": str (two to four sentences), '
    '"rating": number (0-10: how important the community is to the corpus), '
    '"rating_explanation": str (one sentence), '
    '"findings": [{"summary": str (one line), "explanation": str (a few sentences), '
    '"chunk_ids": [str] (the ids of the sources that support it, at least one)}]} with 1 to 5 findings.'
)


class WrittenFinding(BaseModel):
    """One finding and the source chunks that support it."""

    summary: str = Field(min_length=1)
    explanation: str = ""
    chunk_ids: list[str] = Field(min_length=1)

    @field_validator("chunk_ids")
    @classmethod
    def _shown(cls, value: list[str], info: ValidationInfo) -> list[str]:
        shown = (info.context or {}).get("sources")
        if shown is not None:
            unknown = [c for c in value if c not in shown]
            if unknown:
                raise PydanticCustomError(
                    "unknown_source", "cites sources it was not shown: {unknown}; use ids from {shown}",
                    {"unknown": str(unknown), "shown": str(sorted(shown))},
                )
        return value


class WrittenReport(BaseModel):
    """The answer for one community."""

    title: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    rating: float = Field(ge=0, le=10)
    rating_explanation: str = ""
    findings: list[WrittenFinding] = Field(min_length=1)


def _full_content(answer: WrittenReport) -> str:
    parts = [f"# {answer.title}", "", answer.summary, ""]
    for f in answer.findings:
        parts += [f"## {f.summary}", "", f"{f.explanation} [Data: Sources ({', '.join(f.chunk_ids)})]".strip(), ""]
    return "\n".join(parts).strip()


@dataclass(kw_only=True)
class LLMReporter(LLMWorker):
    """Writes community reports with a chat model (see the module docstring).

    The endpoint, cache, shared client and progress are :class:`~agrag_lab.llm.batch.LLMWorker`'s
    (``settings``, ``cache_dir``, ``client``, ``progress``; community ids in :attr:`failures`).

    Parameters
    ----------
    max_entities, max_relations, max_sources, source_chars : int
        How much of the community the prompt shows.
    """

    max_entities: int = 20
    max_relations: int = 15
    max_sources: int = 8
    source_chars: int = 700

    needs: ClassVar[str] = "LLM reports"

    def __post_init__(self) -> None:
        super().__post_init__()
        self._fallback = ExtractiveReporter(max_entities=self.max_entities)

    @property
    def version(self) -> str:
        """Prompt version and model."""
        return f"{REPORT_PROMPT_VERSION};model={self._settings.model}"

    def prompt(self, community: Community, graph: KnowledgeGraph, chunk_text: ChunkText) -> tuple[str, list[str]]:
        """The user message for ``community`` and the source chunk ids it shows."""
        ranked = self._fallback.rank_entities(community, graph)[: self.max_entities]
        edges = self._fallback.key_edges(community, graph)[: self.max_relations]
        names = {e.id: e.name for e in graph.entities.values() if e.id in community.members}
        sources: list[str] = []
        for chunk_id in [c for e in edges for c in e.chunk_ids] + [c for e in ranked for c in e.chunk_ids[:2]]:
            if chunk_id not in sources and chunk_text(chunk_id):
                sources.append(chunk_id)
        sources = sorted(sources[: self.max_sources], key=natural_key)
        lines = ["Entities:"]
        lines += [f"- {e.name} ({e.label}): {trim_text(e.description, 200)}" for e in ranked]
        lines += ["", "Relationships:"]
        for e in edges:
            said = next((s for _c, s in e.sentences if s), "")
            lines.append(f"- {names.get(e.source, e.source)} {e.type} {names.get(e.target, e.target)}: {trim_text(said, 200)}")
        lines += ["", "Sources:"]
        lines += [f"[{c}] {trim_text(' '.join(chunk_text(c).split()), self.source_chars)}" for c in sources]
        return "\n".join(lines), sources

    def report(self, community: Community, graph: KnowledgeGraph, chunk_text: ChunkText) -> CommunityReport:
        """Write the report of ``community``; on failure the extractive one (recorded in :attr:`failures`)."""
        base = self._fallback.report(community, graph, chunk_text)
        content, sources = self.prompt(community, graph, chunk_text)
        messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": content}]
        try:
            answer = self.ask(messages, WrittenReport, self.version, {"sources": set(sources)})
        except LLMError as exc:
            self.fail(community.id, exc)
            return base
        cited = {c for f in answer.findings for c in f.chunk_ids}
        return CommunityReport(
            community_id=community.id,
            level=community.level,
            title=answer.title.strip(),
            summary=answer.summary.strip(),
            key_entities=base.key_entities,
            key_relations=base.key_relations,
            chunk_ids=tuple(sorted(cited, key=natural_key)),
            key_entity_names=base.key_entity_names,
            full_content=_full_content(answer),
            findings=tuple(
                (f.summary.strip(), f"{f.explanation.strip()} [Data: Sources ({', '.join(f.chunk_ids)})]".strip())
                for f in answer.findings
            ),
            rating=float(answer.rating),
            rating_explanation=answer.rating_explanation.strip(),
        )

    def report_many(
        self,
        communities: Sequence[Community],
        graph: KnowledgeGraph,
        chunk_text: ChunkText,
        progress: Progress | None = None,
    ) -> list[CommunityReport]:
        """Reports of ``communities`` in order, ``settings.concurrency`` at once."""
        return self.run_all(lambda c: self.report(c, graph, chunk_text), communities, progress, "LLM reports")
