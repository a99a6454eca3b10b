"""What every batch user of the client shares: the client, the answer cache, failures, concurrency.

:class:`LLMWorker` is the base of :class:`~agrag_lab.kg.extract.llm_extraction.LLMExtractor`
and :class:`~agrag_lab.kg.extract.llm_reports.LLMReporter`: it makes (or shares) the
:class:`~agrag_lab.llm.client.ChatClient`, asks for validated JSON through the
:class:`~agrag_lab.llm.cache.ResponseCache` (:meth:`LLMWorker.ask`), records
what failed (:meth:`LLMWorker.fail`) and runs many requests at
``settings.concurrency`` at once behind a progress bar (:meth:`LLMWorker.run_all`).

Examples
--------
>>> run_concurrently(lambda x: x * 2, [1, 2, 3], workers=2)
[2, 4, 6]
>>> w = LLMWorker(LLMSettings("http://127.0.0.1:9/v1", "qwen3"))
>>> w.fail("chunk-1", LLMError("no answer")), w.failures, w.stats.calls
('no answer', {'chunk-1': 'no answer'}, 0)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel

from agrag_lab.errors import LLMError
from agrag_lab.llm.cache import ResponseCache
from agrag_lab.llm.client import CallStats, ChatClient, LLMSettings
from agrag_lab.llm.structured import ask_structured
from agrag_lab.progress import Progress

__all__ = ["LLMWorker", "Progress", "client_for", "run_concurrently"]

T = TypeVar("T")
R = TypeVar("R")
M = TypeVar("M", bound=BaseModel)


def client_for(settings: LLMSettings | None, client: ChatClient | None, what: str) -> ChatClient:
    """``client``, else one for ``settings``, else one for ``AGRAG_LLM_*``.

    Raises
    ------
    LLMError
        Neither is given and ``AGRAG_LLM_BASE_URL`` is not set; the message says what ``what`` needs.
    """
    if client is not None:
        return client
    settings = settings or LLMSettings.from_env()
    if settings is None:
        raise LLMError(
            f"{what} needs an OpenAI-compatible endpoint: set AGRAG_LLM_BASE_URL and AGRAG_LLM_MODEL "
            "(e.g. http://127.0.0.1:11434/v1 and a model name) or pass LLMSettings"
        )
    return ChatClient(settings)


def run_concurrently(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    workers: int,
    progress: Progress | None = None,
    description: str = "LLM calls",
) -> list[R]:
    """``[fn(item) for item in items]`` on ``workers`` threads, in input order, wrapped by ``progress``."""
    if not items:
        return []
    with ThreadPoolExecutor(max_workers=min(workers, len(items)), thread_name_prefix="llm") as pool:
        done: Iterable[R] = pool.map(fn, items)
        if progress is not None:
            done = progress(done, len(items), description)
        return list(done)


@dataclass
class LLMWorker:
    """Many structured requests to one endpoint, cached, counted and run concurrently.

    Parameters
    ----------
    settings : LLMSettings, optional
        The endpoint; default :meth:`LLMSettings.from_env` (``AGRAG_LLM_*``).
    cache_dir : path, optional
        Where answers are cached (by model, prompt version and content); without one, nothing is.
    client : ChatClient, optional
        Share one client (and its call and token counts) with another worker; made from ``settings`` otherwise.
    progress : callable, optional
        ``progress(iterable, total, description)`` (e.g. tqdm) around :meth:`run_all`.

    Raises
    ------
    LLMError
        No client, no settings and ``AGRAG_LLM_BASE_URL`` is not set.
    """

    settings: LLMSettings | None = None
    cache_dir: str | Path | None = None
    client: ChatClient | None = None
    progress: Progress | None = None
    #: Why each item (chunk or community id) has no LLM answer.
    failures: dict[str, str] = field(default_factory=dict, init=False)
    #: Answers read from the cache instead of asked.
    cache_hits: int = field(default=0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    #: What needs the endpoint (named in the error when none is configured).
    needs: ClassVar[str] = "this LLM step"

    def __post_init__(self) -> None:
        self.client = client_for(self.settings, self.client, self.needs)
        self.settings = self.client.settings
        self._cache = ResponseCache(self.cache_dir) if self.cache_dir is not None else None

    @property
    def _client(self) -> ChatClient:
        assert self.client is not None  # set in __post_init__
        return self.client

    @property
    def _settings(self) -> LLMSettings:
        assert self.settings is not None  # set in __post_init__
        return self.settings

    @property
    def stats(self) -> CallStats:
        """What the client spent (shared with whoever shares the client)."""
        return self._client.stats

    def ask(
        self,
        messages: Sequence[Mapping[str, Any]],
        model: type[M],
        version: str,
        context: Mapping[str, Any] | None = None,
    ) -> M:
        """``model`` from the cache (keyed by model, ``version`` and the last message), else asked and cached.

        Raises
        ------
        LLMError
            The endpoint failed, or answered invalid JSON twice (:class:`StructuredOutputError`).
        """
        key = ResponseCache.key(self._settings.model, version, str(messages[-1]["content"]))
        cached = self._cache.get(key) if self._cache is not None else None
        if cached is not None:
            with self._lock:
                self.cache_hits += 1
            return model.model_validate(cached)
        answer, _tries = ask_structured(self._client, messages, model, context)
        if self._cache is not None:
            self._cache.put(key, answer.model_dump())
        return answer

    def fail(self, item: str, exc: Exception) -> str:
        """Record why ``item`` has no answer; returns the reason."""
        with self._lock:
            self.failures[item] = str(exc)
        return str(exc)

    def run_all(
        self, fn: Callable[[T], R], items: Sequence[T], progress: Progress | None, description: str
    ) -> list[R]:
        """``fn`` over ``items``, ``settings.concurrency`` at once, in order, behind ``progress`` (or :attr:`progress`)."""
        return run_concurrently(
            fn, items, workers=self._settings.concurrency, progress=progress or self.progress, description=description
        )
