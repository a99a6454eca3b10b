"""The LLM graph builders of an index: one extractor and one reporter sharing one client.

:func:`llm_builders` makes an :class:`~agrag_lab.kg.extract.llm_extraction.LLMExtractor`
and an :class:`~agrag_lab.kg.extract.llm_reports.LLMReporter` over one
:class:`~agrag_lab.llm.ChatClient` (so the calls and tokens they spend are
counted together), caching answers under ``cache_dir``, with a tqdm bar for each. :func:`llm_summary`
is the line an ingest report shows for them.

Examples
--------
>>> from agrag_lab.llm import LLMSettings
>>> x, r = llm_builders(None, LLMSettings("http://127.0.0.1:9/v1", "qwen3"))
>>> x.client is r.client
True
>>> llm_summary(x, r)
'LLM qwen3 at http://127.0.0.1:9/v1/chat/completions: 0 LLM calls (0 retries, 0 failed), 0 prompt + 0 completion tokens, 0.0 s; 0 cached answers; 0 chunks and 0 communities failed'
"""

from __future__ import annotations

from pathlib import Path

from agrag_lab.kg.extract.llm_extraction import LLMExtractor
from agrag_lab.kg.extract.llm_reports import LLMReporter
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.llm import CallStats, LLMSettings
from agrag_lab.progress import Progress, tqdm_progress

__all__ = ["llm_builders", "llm_summary"]


def llm_builders(
    cache_dir: str | Path | None,
    settings: LLMSettings | None = None,
    *,
    schema: GraphSchema = GENERIC,
    progress: Progress | None = tqdm_progress,
) -> tuple[LLMExtractor, LLMReporter]:
    """An extractor and a reporter on one client (settings default: ``AGRAG_LLM_*``).

    ``progress`` wraps the extraction and the report calls (default: a tqdm bar on
    stderr each, "LLM extraction" and "LLM reports"; ``None``: no bar).

    Raises
    ------
    LLMError
        No settings and ``AGRAG_LLM_BASE_URL`` is not set.
    """
    folder = None if cache_dir is None else Path(cache_dir)
    extractor = LLMExtractor(
        settings, None if folder is None else folder / "extractions", schema=schema, progress=progress
    )
    reporter = LLMReporter(
        client=extractor.client, cache_dir=None if folder is None else folder / "reports", progress=progress
    )
    return extractor, reporter


def llm_summary(extractor: LLMExtractor, reporter: LLMReporter | None = None, since: CallStats | None = None) -> str:
    """What the builders spent (since ``since``), what the cache saved and what failed."""
    stats = extractor.stats - since if since is not None else extractor.stats
    hits = extractor.cache_hits + (reporter.cache_hits if reporter is not None else 0)
    failed_reports = len(reporter.failures) if reporter is not None else 0
    assert extractor.settings is not None
    return (
        f"LLM {extractor.settings.model} at {extractor.settings.endpoint}: {stats}; {hits} cached answers; "
        f"{len(extractor.failures)} chunks and {failed_reports} communities failed"
    )
