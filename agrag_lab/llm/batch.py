"""What every batch user of the client shares: making the client, and running calls concurrently.

Examples
--------
>>> run_concurrently(lambda x: x * 2, [1, 2, 3], workers=2)
[2, 4, 6]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from agrag_lab.errors import LLMError
from agrag_lab.llm.client import ChatClient, LLMSettings

__all__ = ["Progress", "client_for", "run_concurrently"]

T = TypeVar("T")
R = TypeVar("R")
#: ``progress(iterable, total, description)``, e.g. a tqdm factory.
Progress = Callable[[Iterable[Any], int, str], Iterable[Any]]


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
