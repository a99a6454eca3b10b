"""A small OpenAI-compatible chat server on 127.0.0.1 that replays a script of replies.

Each script step sees the request body (so it can use ids from earlier tool
results) and returns the assistant message to send back. The real
:class:`~agrag_lab.agent.llm.ChatClient` talks to it over HTTP.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = Callable[[dict[str, Any]], dict[str, Any]]


class ScriptedChat:
    """Replays ``script``; records every request body and its headers."""

    def __init__(self, script: list[Step], *, fail_with: int | None = None) -> None:
        self.script = list(script)
        self.fail_with = fail_with
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.state: dict[str, Any] = {}
        self.lock = threading.Lock()

    def reply(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self.fail_with is not None:
                return self.fail_with, {"error": {"message": "scripted failure", "type": "server_error"}}
            if not self.script:
                return 500, {"error": {"message": "the script has no more replies"}}
            message = self.script.pop(0)(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
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
