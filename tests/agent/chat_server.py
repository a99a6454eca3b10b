"""A small OpenAI-compatible chat server on 127.0.0.1 that replays a script of replies.

Each script step sees the request body (so it can use ids from earlier tool
results) and returns the assistant message to send back. The real
:class:`~agrag_lab.llm.ChatClient` talks to it over HTTP.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = Callable[[dict[str, Any]], dict[str, Any]]


class ScriptedChat:
    """Replays ``script``; records every request body and its headers.

    ``fail_with`` answers every request with that HTTP status; ``statuses``
    answers the first requests with those statuses (e.g. ``[429]``, then the
    script); ``delay`` waits that many seconds before each answer (for
    timeouts); ``default`` answers once the script is used up (e.g.
    :func:`graph_reply`, which answers any extraction or report request).
    """

    def __init__(
        self,
        script: list[Step],
        *,
        fail_with: int | None = None,
        statuses: list[int] | None = None,
        delay: float = 0.0,
        default: Step | None = None,
    ) -> None:
        self.script = list(script)
        self.fail_with = fail_with
        self.statuses = list(statuses or [])
        self.delay = delay
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.state: dict[str, Any] = {}
        self.lock = threading.Lock()

    def reply(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if self.delay:
            time.sleep(self.delay)
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self.fail_with is not None:
                return self.fail_with, {"error": {"message": "scripted failure", "type": "server_error"}}
            if self.statuses:
                return self.statuses.pop(0), {"error": {"message": "scripted status", "type": "rate_limit"}}
            step = self.script.pop(0) if self.script else self.default
        if step is None:
            return 500, {"error": {"message": "the script has no more replies"}}
        message = step(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        prompt = sum(len(str(m.get("content") or "")) for m in body.get("messages", ())) // 4
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": len(str(message.get("content") or "")) // 4},
        }


@contextmanager
def serve(chat: ScriptedChat) -> Iterator[str]:
    """Serve ``chat`` on a free 127.0.0.1 port; yields the base URL (``.../v1``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            if self.path != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            status, payload = chat.reply(json.loads(raw), {k.lower(): v for k, v in self.headers.items()})
            self._send(status, payload)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# -- script steps -----------------------------------------------------------------------


def tool_result(body: dict[str, Any], back: int = 1) -> dict[str, Any]:
    """The ``back``-th last tool result the agent sent (parsed JSON)."""
    tools = [m for m in body["messages"] if m["role"] == "tool"]
    parsed: dict[str, Any] = json.loads(tools[-back]["content"])
    return parsed


def call(name: str, arguments: Callable[[dict[str, Any]], Any] | dict[str, Any] | str) -> Step:
    """A step that asks for one tool call (arguments may depend on the request)."""

    def step(body: dict[str, Any]) -> dict[str, Any]:
        args = arguments(body) if callable(arguments) else arguments
        text = args if isinstance(args, str) else json.dumps(args)
        n = len([m for m in body["messages"] if m["role"] == "assistant"])
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": text}}],
        }

    return step


def say(content: Callable[[dict[str, Any]], str] | str) -> Step:
    """A step that answers with text."""

    def step(body: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": content(body) if callable(content) else content}

    return step


# -- a deterministic stand-in for a model that extracts graphs and writes reports ------------------

_NAME = re.compile(r"\b[A-Z][a-z]+(?:[ -](?:of |de |the )?[A-Z][a-z]+)+")
_TYPES = (("Engine", "Machine"), ("Loom", "Machine"), ("Society", "Organization"), ("College", "Organization"),
          ("Museum", "Organization"), ("University", "Organization"), ("Abbey", "Place"))


def _type_of(name: str) -> str:
    return next((t for word, t in _TYPES if name.split()[-1].rstrip("s") == word), "Person")


def extraction_answer(text: str) -> dict[str, Any]:
    """The extraction a model would give for ``text``, by a small rule: multi-word capitalised names.

    Each name is typed by its last word (Engine: Machine; Society: Organization...; else Person) and
    described by its sentence; names that share a sentence are related, strength 5.
    """
    entities: dict[str, dict[str, str]] = {}
    relationships = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        names = list(dict.fromkeys(m.group(0) for m in _NAME.finditer(sentence)))
        for name in names:
            entities.setdefault(name, {"name": name, "type": _type_of(name), "description": sentence.strip()[:200]})
        for a, b in itertools.pairwise(names):
            kind = "WORKED_WITH" if " worked with " in sentence else "RELATED_TO"
            relationships.append({"source": a, "target": b, "type": kind, "description": sentence.strip()[:200],
                                  "strength": 5})
    return {"entities": list(entities.values()), "relationships": relationships}


def report_answer(prompt: str) -> dict[str, Any]:
    """The report a model would write for a community prompt: named after its first entities, citing its sources."""
    names = re.findall(r"^- (.+?) \(", prompt, flags=re.MULTILINE)
    sources = re.findall(r"^\[([^\]]+)\] (.*)$", prompt, flags=re.MULTILINE)
    title = " and ".join(names[:2]) or "A community"
    findings = [
        {"summary": f"{names[0] if names else 'It'} in source {cid}", "explanation": text[:160], "chunk_ids": [cid]}
        for cid, text in sources[:3]
    ] or [{"summary": "No sources", "explanation": "", "chunk_ids": ["none"]}]
    return {
        "title": title,
        "summary": f"This community is about {', '.join(names[:4]) or 'nothing named'}.",
        "rating": min(10, len(names)),
        "rating_explanation": f"{len(names)} entities, {len(sources)} sources.",
        "findings": findings,
    }


def graph_reply(body: dict[str, Any]) -> dict[str, Any]:
    """Answer an extraction or a report request deterministically (the JSON a good model would send)."""
    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    if system.startswith("You extract a knowledge graph"):
        answer = extraction_answer(user.split("\n\n", 1)[-1] if user.startswith("Document:") else user)
    elif system.startswith("You write a report"):
        answer = report_answer(user)
    else:
        return {"role": "assistant", "content": "I only extract graphs and write reports."}
    return {"role": "assistant", "content": json.dumps(answer)}
