"""Texts embedded whole, as the peers embed them: one vector per text, a long text as the mean of its windows.

Nothing is cut to a fixed length before it is embedded. A text within
:data:`WINDOW_TOKENS` tokens goes to the model whole (the model reads what it
reads: the bundled all-MiniLM-L6-v2 reads its first 256 word pieces, exactly as
a builder's endpoint serving that model does). A longer one is split into
windows of that many tokens, each window is embedded, and the text's vector is
the normalised mean of its windows' vectors: GraphRAG's ``embed_text``
(``_prepare_embed_texts`` splits with its token splitter at ``batch_max_tokens``,
8191 by default; ``_reconstitute_embeddings`` averages and normalises).
LightRAG sends each text whole; no text it embeds comes near that length.

Tokens are counted as GraphRAG's tokenizer counts English on average
(:data:`CHARS_PER_TOKEN` characters per token); windows end at a space where
there is one.

Examples
--------
>>> windows("word " * 10, tokens=3)
['word word ', 'word word ', 'word word ', 'word word ', 'word word ']
>>> windows("short")
['short']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agrag_lab.embedding import Embedder

__all__ = ["CHARS_PER_TOKEN", "WINDOW_TOKENS", "embed_whole", "windows"]

#: The longest text embedded in one piece, in tokens (GraphRAG's ``embed_text.batch_max_tokens`` default).
WINDOW_TOKENS = 8191
#: Characters per token of OpenAI's tokenizers on English text (how a window's length is counted).
CHARS_PER_TOKEN = 4


def windows(text: str, tokens: int = WINDOW_TOKENS) -> list[str]:
    """``text`` cut into windows of at most ``tokens`` tokens (one window when it fits), ending at a space."""
    size = max(1, tokens * CHARS_PER_TOKEN)
    out: list[str] = []
    start = 0
    while len(text) - start > size:
        end = text.rfind(" ", start + 1, start + size)
        end = start + size if end <= start else end + 1
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


def embed_whole(embedder: Embedder, texts: Sequence[str], tokens: int = WINDOW_TOKENS) -> np.ndarray:
    """One vector per text: the model's vector of a text that fits a window, else the normalised mean of
    its windows' vectors (GraphRAG's rule); shape ``(len(texts), dimension)``."""
    pieces = [windows(t, tokens) for t in texts]
    if all(len(p) == 1 for p in pieces):
        return embedder.embed(texts)
    flat = [w for p in pieces for w in p]
    vectors = np.asarray(embedder.embed(flat), dtype=np.float32)
    out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
    at = 0
    for row, p in enumerate(pieces):
        mean = vectors[at:at + len(p)].mean(axis=0)
        norm = float(np.linalg.norm(mean))
        out[row] = mean / norm if norm > 0 else mean
        at += len(p)
    return out
