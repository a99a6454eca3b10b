"""The shared LLM floor: one OpenAI-compatible chat client for the agent, LLM extraction and LLM reports.

- :mod:`~agrag_lab.llm.client` — :class:`LLMSettings` (``AGRAG_LLM_*``), :class:`ChatClient`
  (timeouts, retries with back-off on 429/5xx, token and call counts).
- :mod:`~agrag_lab.llm.structured` — :func:`ask_structured`: pydantic-validated JSON, one retry.
- :mod:`~agrag_lab.llm.cache` — :class:`ResponseCache`: answers keyed by model, prompt version, content.
- :mod:`~agrag_lab.llm.batch` — :class:`LLMWorker`: the base of LLM extraction and reports (client,
  cache, failures, concurrency, progress).

Examples
--------
>>> from agrag_lab.llm import LLMSettings
>>> LLMSettings("http://127.0.0.1:8000/v1", "qwen3").endpoint
'http://127.0.0.1:8000/v1/chat/completions'
"""

from agrag_lab.errors import LLMError
from agrag_lab.llm.batch import LLMWorker
from agrag_lab.llm.cache import ResponseCache
from agrag_lab.llm.client import CallStats, ChatClient, ChatReply, LLMSettings, ToolCall
from agrag_lab.llm.structured import StructuredOutputError, ask_structured, parse_json_reply

__all__ = [
    "CallStats",
    "ChatClient",
    "ChatReply",
    "LLMError",
    "LLMSettings",
    "LLMWorker",
    "ResponseCache",
    "StructuredOutputError",
    "ToolCall",
    "ask_structured",
    "parse_json_reply",
]
