"""An OpenAI-compatible chat + embeddings server on 127.0.0.1 for the peers' own code.

Chat completions are answered by :mod:`peers.scripted_model` (the exact formats the
peers parse); embeddings are OUR models' vectors, so every vector a peer stores or compares
is one agrag_lab would compute for the same text. Two models are served, by the request's
``model`` (:data:`MODELS`): the bundled all-MiniLM-L6-v2 (384 dimensions, the default) and
the static model distilled from it (model2vec, ``static-all-MiniLM-L6-v2-256``: 256
dimensions, another model with its own vectors, for a builder whose model differs from
ours in name and length); any other name is answered 404. Runs in agrag_lab's own venv;
the peers run in theirs and reach it by URL.

Usage: ``python -m peers.server`` prints ``http://127.0.0.1:PORT/v1`` on its first line
and serves until killed (or use :func:`serve` as a context manager).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agrag_lab.embedding import STATIC_DEFAULT_NAME, Embedder, SentenceTransformerEmbedder, StaticEmbedder
from peers import scripted_model

EMBEDDER = SentenceTransformerEmbedder()
#: The embedding models served, by the name a request gives (the static one loads on its first request).
MODELS: dict[str, Embedder] = {EMBEDDER.name: EMBEDDER, STATIC_DEFAULT_NAME: StaticEmbedder()}
_LOCK = threading.Lock()
#: Every request served, in order (kind, body); the run scripts write a summary.
LOG: list[tuple[str, dict[str, Any]]] = []


def _chat(body: dict[str, Any]) -> dict[str, Any]:
    content = scripted_model.answer(body)
    prompt = sum(len(str(m.get("content") or "")) for m in body.get("messages", ())) // 4
    return {
        "id": f"chatcmpl-{len(LOG)}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": len(content) // 4, "total_tokens": prompt + len(content) // 4},
    }


def _embeddings(body: dict[str, Any]) -> dict[str, Any] | None:
    """The vectors of ``body["input"]`` by the model it names (default: the bundled one); None: not served."""
    raw = body.get("input", [])
    texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
    model = str(body.get("model") or EMBEDDER.name)
    embedder = MODELS.get(model)
    if embedder is None:
        return None
    with _LOCK:
        vectors = embedder.embed(texts)
    return {
        "object": "list",
        "model": model,
        "data": [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)],
        "usage": {"prompt_tokens": sum(len(t) for t in texts) // 4, "total_tokens": sum(len(t) for t in texts) // 4},
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            served = ["scripted", *sorted(MODELS)]
            self._send(200, {"object": "list", "data": [{"id": name, "object": "model"} for name in served]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        path = self.path.split("?", 1)[0].rstrip("/")
        print(f"{path} {str(body.get('messages', body.get('input')))[-120:]!r}", file=sys.stderr, flush=True)
        if path.endswith("/chat/completions"):
            with _LOCK:
                LOG.append(("chat", body))
            self._send(200, _chat(body))
        elif path.endswith("/embeddings"):
            with _LOCK:
                LOG.append(("embeddings", body))
            answer = _embeddings(body)
            if answer is None:
                self._send(404, {"error": {"message": f"model {body.get('model')!r} is not served here; "
                                                      f"served: {sorted(MODELS)}", "code": "model_not_found"}})
            else:
                self._send(200, answer)
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def serve() -> Iterator[str]:
    """Serve on a free 127.0.0.1 port; yields the base URL (``.../v1``)."""
    EMBEDDER.embed(["warm up"])  # the model loads before the first peer request can time out
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


if __name__ == "__main__":
    with serve() as url:
        print(url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            sys.exit(0)
