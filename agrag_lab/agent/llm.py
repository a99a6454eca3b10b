"""An OpenAI-compatible chat endpoint with tool calling, over httpx.

Works with any server that speaks ``POST {base_url}/chat/completions`` with
``tools`` (OpenAI, Ollama's ``/v1``, vLLM, llama.cpp server, LM Studio...).
Settings come from arguments or the environment:

=====================  ======================================================
AGRAG_LLM_BASE_URL     e.g. ``http://127.0.0.1:11434/v1`` (required)
AGRAG_LLM_MODEL        the model name the server knows (required)
AGRAG_LLM_API_KEY      sent as ``Authorization: Bearer ...`` (optional)
=====================  ======================================================

Examples
--------
>>> LLMSettings.from_env({}) is None
True
>>> s = LLMSettings.from_env({"AGRAG_LLM_BASE_URL": "http://127.0.0.1:11434/v1/", "AGRAG_LLM_MODEL": "qwen3"})
>>> s.endpoint, s
('http://127.0.0.1:11434/v1/chat/completions', LLMSettings(base_url='http://127.0.0.1:11434/v1', model='qwen3', api_key=None))
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from agrag_lab.agent.errors import LLMError

__all__ = ["ChatClient", "ChatReply", "LLMSettings", "ToolCall"]


@dataclass(frozen=True)
class LLMSettings:
    """Where the chat model is and how to call it.

    Parameters
    ----------
    base_url : str
        The API root (the part before ``/chat/completions``).
    model : str
        The model name.
    api_key : str, optional
        Sent as a bearer token; never shown in ``repr``.
    timeout : float
        Seconds to wait for one completion.
    temperature : float
        Sampling temperature (0: as deterministic as the server allows).
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = field(default=120.0, repr=False)
    temperature: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        if not self.base_url or not self.base_url.startswith(("http://", "https://")):
            raise LLMError(
                f"LLM base URL {self.base_url!r} is not an http(s) URL; set AGRAG_LLM_BASE_URL or pass "
                "base_url, e.g. http://127.0.0.1:11434/v1"
            )
        if not self.model:
            raise LLMError("no LLM model named; set AGRAG_LLM_MODEL or pass model")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))

    def __repr__(self) -> str:
        key = "'***'" if self.api_key else "None"
        return f"LLMSettings(base_url={self.base_url!r}, model={self.model!r}, api_key={key})"

    @property
    def endpoint(self) -> str:
        """The chat completions URL."""
        return f"{self.base_url}/chat/completions"

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
    ) -> LLMSettings | None:
        """Settings from arguments, else ``AGRAG_LLM_*`` variables; ``None`` when no base URL is set.

        Raises
        ------
        LLMError
            A base URL is set but no model.
        """
        env = os.environ if env is None else env
        url = base_url or env.get("AGRAG_LLM_BASE_URL")
        if not url:
            return None
        return cls(url, model or env.get("AGRAG_LLM_MODEL", ""), api_key or env.get("AGRAG_LLM_API_KEY") or None)


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for; ``arguments`` is the JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """One assistant turn: text and/or tool calls, and the message to send back in the history."""

    content: str
    tool_calls: tuple[ToolCall, ...]
    message: dict[str, Any]
    finish_reason: str | None = None


class ChatClient:
    """Calls the chat completions endpoint of :class:`LLMSettings`.

    Parameters
    ----------
    settings : LLMSettings
        Where and what to call.
    transport : httpx.BaseTransport, optional
        For tests (``httpx.MockTransport``); the default is the network.
    """

    def __init__(self, settings: LLMSettings, *, transport: httpx.BaseTransport | None = None) -> None:
        self.settings = settings
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self._client = httpx.Client(timeout=settings.timeout, headers=headers, transport=transport)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> ChatReply:
        """One completion with tools available.

        Raises
        ------
        LLMError
            The endpoint is unreachable, answers an HTTP error, or answers
            something that is not a chat completion.
        """
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": list(messages),
            "temperature": self.settings.temperature,
        }
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        url = self.settings.endpoint
        try:
            response = self._client.post(url, json=body)
        except httpx.HTTPError as exc:
            raise LLMError(f"cannot reach the LLM endpoint {url}: {type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            detail = response.text[:300].strip()
            raise LLMError(f"the LLM endpoint {url} answered HTTP {response.status_code}: {detail}")
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMError(
                f"the LLM endpoint {url} did not answer a chat completion (no choices[0].message): "
                f"{response.text[:200]!r}"
            ) from exc
        return _reply(message, choice.get("finish_reason"))


def _reply(message: Mapping[str, Any], finish_reason: str | None) -> ChatReply:
    calls: list[ToolCall] = []
    for i, raw in enumerate(message.get("tool_calls") or ()):
        function = raw.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):  # some servers send an object
            arguments = json.dumps(arguments if arguments is not None else {})
        calls.append(ToolCall(str(raw.get("id") or f"call_{i}"), str(function.get("name", "")), arguments))
    content = message.get("content") or ""
    if not isinstance(content, str):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    history: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        history["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    return ChatReply(content, tuple(calls), history, finish_reason)
