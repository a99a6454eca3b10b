"""The one OpenAI-compatible chat client: the agent, LLM extraction and LLM reports use it.

Works with any server that speaks ``POST {base_url}/chat/completions``
(OpenAI, Ollama's ``/v1``, vLLM, llama.cpp server, LM Studio...), with
``tools`` for the agent and ``response_format`` for structured output.
Settings come from arguments or the environment:

=====================  ======================================================
AGRAG_LLM_BASE_URL     e.g. ``http://127.0.0.1:11434/v1`` (required)
AGRAG_LLM_MODEL        the model name the server knows (required)
AGRAG_LLM_API_KEY      sent as ``Authorization: Bearer ...`` (optional)
AGRAG_LLM_TIMEOUT      seconds for one completion (optional, default 120)
=====================  ======================================================

A call that times out, cannot connect, or is answered HTTP 429 or 5xx is
retried ``max_retries`` times with exponential back-off (a ``Retry-After``
header is honoured); then :class:`~agrag_lab.errors.LLMError` names the
endpoint and what happened. :attr:`ChatClient.stats` counts calls, retries,
tokens and seconds (thread-safe: the client may be shared by worker threads).

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
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agrag_lab.errors import LLMError

if TYPE_CHECKING:
    import httpx  # imported where a client is made: a search without an LLM configured never needs it

__all__ = ["CallStats", "ChatClient", "ChatReply", "LLMSettings", "ToolCall"]

#: HTTP statuses worth another try: rate limit and server errors.
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


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
    max_retries : int
        Further tries after a timeout, a lost connection, or HTTP 429/5xx.
    backoff : float
        Seconds before the first retry; doubled for each next one.
    concurrency : int
        How many calls batch users (extraction, reports) run at once.
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = field(default=120.0, repr=False)
    temperature: float = field(default=0.0, repr=False)
    max_retries: int = field(default=2, repr=False)
    backoff: float = field(default=0.5, repr=False)
    concurrency: int = field(default=4, repr=False)

    def __post_init__(self) -> None:
        if not self.base_url or not self.base_url.startswith(("http://", "https://")):
            raise LLMError(
                f"LLM base URL {self.base_url!r} is not an http(s) URL; set AGRAG_LLM_BASE_URL or pass "
                "base_url, e.g. http://127.0.0.1:11434/v1"
            )
        if not self.model:
            raise LLMError("no LLM model named; set AGRAG_LLM_MODEL or pass model")
        if self.timeout <= 0 or self.max_retries < 0 or self.backoff < 0 or self.concurrency < 1:
            raise LLMError(
                f"LLM settings out of range (timeout {self.timeout}, max_retries {self.max_retries}, "
                f"backoff {self.backoff}, concurrency {self.concurrency}): timeout > 0, retries and back-off "
                ">= 0, concurrency >= 1"
            )
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
        timeout = env.get("AGRAG_LLM_TIMEOUT")
        try:
            seconds = float(timeout) if timeout else 120.0
        except ValueError as exc:
            raise LLMError(f"AGRAG_LLM_TIMEOUT={timeout!r} is not a number of seconds") from exc
        return cls(
            url, model or env.get("AGRAG_LLM_MODEL", ""), api_key or env.get("AGRAG_LLM_API_KEY") or None, seconds
        )


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for; ``arguments`` is the JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """One assistant turn: text and/or tool calls, the message to send back in the history, token usage."""

    content: str
    tool_calls: tuple[ToolCall, ...]
    message: dict[str, Any]
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class CallStats:
    """What a client spent: completions, retries, failed calls, tokens, seconds waiting.

    Examples
    --------
    >>> (CallStats(calls=2, prompt_tokens=10) - CallStats(calls=1, prompt_tokens=4)).calls
    1
    """

    calls: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def __sub__(self, other: CallStats) -> CallStats:
        return CallStats(
            self.calls - other.calls,
            self.retries - other.retries,
            self.failures - other.failures,
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
            self.seconds - other.seconds,
        )

    def __str__(self) -> str:
        return (
            f"{self.calls} LLM calls ({self.retries} retries, {self.failures} failed), "
            f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens, {self.seconds:.1f} s"
        )


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
        import httpx

        self._client = httpx.Client(timeout=settings.timeout, headers=headers, transport=transport)
        self._lock = threading.Lock()
        self._stats = CallStats()

    @property
    def stats(self) -> CallStats:
        """Everything this client spent so far (subtract two readings for one job)."""
        with self._lock:
            return self._stats

    def _count(self, **spent: float) -> None:
        with self._lock:
            s = self._stats
            self._stats = CallStats(
                s.calls + int(spent.get("calls", 0)),
                s.retries + int(spent.get("retries", 0)),
                s.failures + int(spent.get("failures", 0)),
                s.prompt_tokens + int(spent.get("prompt_tokens", 0)),
                s.completion_tokens + int(spent.get("completion_tokens", 0)),
                s.seconds + float(spent.get("seconds", 0.0)),
            )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] = (),
        *,
        response_format: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        """One completion, with tools available and/or a ``response_format`` (e.g. ``{"type": "json_object"}``).

        Raises
        ------
        LLMError
            The endpoint is unreachable or times out (after the retries),
            answers an HTTP error, or answers something that is not a chat completion.
        """
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": list(messages),
            "temperature": self.settings.temperature,
        }
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        if response_format is not None:
            body["response_format"] = dict(response_format)
        response = self._post(body)
        url = self.settings.endpoint
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            self._count(failures=1)
            raise LLMError(
                f"the LLM endpoint {url} did not answer a chat completion (no choices[0].message): "
                f"{response.text[:200]!r}"
            ) from exc
        usage = data.get("usage") if isinstance(data, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        reply = _reply(message, choice.get("finish_reason"))
        prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        self._count(prompt_tokens=prompt, completion_tokens=completion)
        return ChatReply(reply.content, reply.tool_calls, reply.message, reply.finish_reason, prompt, completion)

    def _post(self, body: Mapping[str, Any]) -> httpx.Response:
        """POST with retries on timeouts, lost connections and HTTP 429/5xx (see the module docstring)."""
        import httpx  # imported once a client exists: no cost here

        url = self.settings.endpoint
        attempts = self.settings.max_retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            started = time.perf_counter()
            wait: float | None = None
            try:
                response = self._client.post(url, json=body)
            except httpx.HTTPError as exc:
                self._count(calls=1, seconds=time.perf_counter() - started)
                if last:
                    self._count(failures=1)
                    if isinstance(exc, httpx.TimeoutException):
                        problem = (f"the LLM endpoint {url} did not answer within {self.settings.timeout:g} s "
                                   f"({attempts} tries); raise AGRAG_LLM_TIMEOUT or check the server")
                    else:
                        problem = (f"cannot reach the LLM endpoint {url}: {type(exc).__name__}: {exc} "
                                   f"(is the server running? AGRAG_LLM_BASE_URL={self.settings.base_url})")
                    raise LLMError(problem) from exc
            else:
                self._count(calls=1, seconds=time.perf_counter() - started)
                if response.status_code < 400:
                    return response
                if response.status_code not in RETRY_STATUSES or last:
                    self._count(failures=1)
                    detail = response.text[:300].strip()
                    raise LLMError(f"the LLM endpoint {url} answered HTTP {response.status_code}: {detail}")
                wait = _retry_after(response)
            self._count(retries=1)
            delay = self.settings.backoff * (2**attempt)
            time.sleep(min(wait if wait is not None else delay, 60.0))
        raise LLMError(f"the LLM endpoint {url} was not called")  # unreachable: attempts >= 1


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


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
