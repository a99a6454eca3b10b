"""Structured output: ask for JSON, validate it with pydantic, show the model its error once.

:func:`ask_structured` sends the messages with ``response_format`` JSON,
parses the reply (a Markdown code fence around the JSON is tolerated) and
validates it against a pydantic model. When that fails, the model sees its
own answer and the validation error and answers once more; a second failure
raises :class:`StructuredOutputError`, which carries both errors so the
caller can record why a chunk or a community has no LLM output.

Examples
--------
>>> from pydantic import BaseModel
>>> class Pair(BaseModel):
...     a: int
>>> parse_json_reply('```json\\n{"a": 1}\\n```', Pair)
Pair(a=1)
>>> try:
...     parse_json_reply('{"a": "x"}', Pair)
... except ValueError as exc:
...     print(_why(exc))
the JSON does not fit the schema: a: Input should be a valid integer, unable to parse string as an integer
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agrag_lab.errors import StructuredOutputError
from agrag_lab.llm.client import ChatClient

__all__ = ["StructuredOutputError", "ask_structured", "parse_json_reply"]

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
#: How much of an invalid answer is quoted back to the model and kept in the error.
QUOTE_CHARS = 2000


def parse_json_reply(content: str, model: type[M], context: Mapping[str, Any] | None = None) -> M:
    """The reply ``content`` as a validated ``model`` (raises ``ValueError`` / ``ValidationError``).

    ``context`` reaches the model's validators (``info.context``), e.g. the ids an answer may cite.
    """
    fenced = _FENCE.match(content)
    text = fenced.group(1) if fenced else content.strip()
    return model.model_validate(json.loads(text), context=dict(context) if context is not None else None)


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "the JSON does not fit the schema: " + "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:8]
        )
    return f"the answer is not valid JSON: {exc}"


def ask_structured(
    client: ChatClient,
    messages: Sequence[Mapping[str, Any]],
    model: type[M],
    context: Mapping[str, Any] | None = None,
) -> tuple[M, int]:
    """Ask for ``model`` as JSON; returns it and how many completions it took (1 or 2).

    ``context`` is passed to validation (see :func:`parse_json_reply`).

    Raises
    ------
    StructuredOutputError
        Both answers were invalid (the errors are in the message).
    LLMError
        The endpoint failed (see :meth:`ChatClient.complete`).
    """
    history = [dict(m) for m in messages]
    errors: list[str] = []
    for attempt in (1, 2):
        reply = client.complete(history, response_format={"type": "json_object"})
        try:
            return parse_json_reply(reply.content, model, context), attempt
        except (ValueError, ValidationError) as exc:
            errors.append(_why(exc))
        history += [
            {"role": "assistant", "content": reply.content[:QUOTE_CHARS]},
            {
                "role": "user",
                "content": f"Your answer was invalid: {errors[-1]}. Answer again with only the JSON object, "
                "following the schema exactly.",
            },
        ]
    raise StructuredOutputError(
        f"the LLM at {client.settings.endpoint} answered invalid JSON twice: {errors[0]} | then: {errors[1]}", errors
    )
