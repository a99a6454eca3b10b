"""The built-in agent: a tool loop over the evidence functions, with checked citations.

:class:`Agent` answers a question with the same functions the MCP server
serves (discover, fetch, navigate, find_entities, explore, check_citations),
through one :class:`~agrag_lab.evidence.session.EvidenceSession`, so it can
only read and cite what the session's scope allows.

* With an OpenAI-compatible chat endpoint (:class:`~agrag_lab.llm.LLMSettings`)
  the model chooses the tool calls; the agent runs them, records them, and
  checks the model's answer. A rejected citation gets the model one retry
  (it is told which ids and why); what is still rejected after that is
  removed, claim by claim, and the answer says so.
* Without one, :class:`~agrag_lab.agent.policy.ExtractivePolicy` answers
  deterministically from the fetched passages (no network, no model).

Either way the answer never contains a citation that ``check_citations``
rejects, and every step is recorded (tool, arguments, result ids, time).

Examples
--------
>>> from agrag_lab import Graph                                  # doctest: +SKIP
>>> agent = Agent(Graph.open("index", read_only=True).evidence())  # doctest: +SKIP
>>> answer = agent.ask("Who worked with Babbage?")              # doctest: +SKIP
>>> print(answer.text)                                           # doctest: +SKIP
Ada Lovelace worked with Charles Babbage on the Analytical Engine ... [1].
<BLANKLINE>
Sources
[1] Ada Lovelace, version 17ef231d1cf5 <ada-lovelace@17ef231d1cf5#c0>
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agrag_lab.agent.claims import drop_invalid, strip_citations
from agrag_lab.agent.errors import AgentArgumentError
from agrag_lab.agent.policy import ExtractivePolicy, Similarity, embedding_similarity
from agrag_lab.agent.record import AgentAnswer, Step
from agrag_lab.agent.tools import AGENT_TOOLS, ToolOutcome, call_tool, openai_tools
from agrag_lab.evidence.citations import find_citations
from agrag_lab.evidence.results import CitationCheck, RenderedAnswer
from agrag_lab.llm import ChatClient, LLMSettings

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession

__all__ = ["SYSTEM_PROMPT", "Agent"]

#: What the model is told about the task and the tools.
SYSTEM_PROMPT = """\
You answer questions from a document collection, using only the passages the tools return.
Work in steps:
1. search_evidence for passages (find_entities and explore for people, places and their relations);
2. fetch_evidence the ids you will rely on, and read their exact text;
3. navigate to neighbouring passages or table cells when you need more context;
4. answer briefly, and after each claim cite, in square brackets, the evidence id of a fetched passage
   that states it, e.g. [doc-7@3f9a1c2b0d4e#c12]. Copy ids exactly.
Cite only ids you fetched with fetch_evidence: citations are checked, and unfetched ones are removed
together with their claims. If the passages do not answer the question, say so."""

_MAX_TOOL_MESSAGE = 12_000


class _Run:
    """The tool calls of one question, recorded as steps."""

    def __init__(self, session: EvidenceSession) -> None:
        self.session = session
        self.steps: list[Step] = []

    def tool(self, name: str, arguments: Mapping[str, Any] | str, note: str | None = None) -> ToolOutcome:
        outcome = call_tool(self.session, name, arguments)
        self.steps.append(
            Step(len(self.steps) + 1, name, outcome.arguments, outcome.ids, outcome.seconds, outcome.error, note)
        )
        return outcome

    def policy_runner(self, name: str, arguments: Mapping[str, Any], note: str) -> ToolOutcome:
        return self.tool(name, arguments, note)


class Agent:
    """Answer questions with checked citations, through one evidence session.

    Parameters
    ----------
    session : EvidenceSession
        Its scope bounds what is read; its fetch memory decides which
        citations are valid.
    llm : LLMSettings or ChatClient, optional
        An OpenAI-compatible chat endpoint with tool calling. ``None`` (the
        default) uses the offline extractive policy; use
        ``LLMSettings.from_env()`` to read ``AGRAG_LLM_*``.
    policy : ExtractivePolicy, optional
        The offline policy and its settings.
    max_turns : int
        Most model turns per question.
    citation_retries : int
        How many times the model is asked to fix rejected citations before
        they are removed.
    """

    def __init__(
        self,
        session: EvidenceSession,
        llm: LLMSettings | ChatClient | None = None,
        *,
        policy: ExtractivePolicy | None = None,
        max_turns: int = 12,
        citation_retries: int = 1,
    ) -> None:
        self.session = session
        self.client: ChatClient | None = ChatClient(llm) if isinstance(llm, LLMSettings) else llm
        self._owns_client = isinstance(llm, LLMSettings)
        self.policy = policy if policy is not None else ExtractivePolicy()
        self.max_turns = max_turns
        self.citation_retries = citation_retries

    def __repr__(self) -> str:
        return f"Agent(policy={self.policy_name!r}, session={self.session!r})"

    def close(self) -> None:
        """Close the chat client's connections (if the agent made the client)."""
        if self.client is not None and self._owns_client:
            self.client.close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def policy_name(self) -> str:
        """``extractive`` or ``llm:MODEL``."""
        return "extractive" if self.client is None else f"llm:{self.client.settings.model}"

    def ask(self, question: str) -> AgentAnswer:
        """Answer ``question``; every citation in the answer was fetched in the session.

        Raises
        ------
        AgentArgumentError
            The question is not a non-blank string.
        LLMError
            The chat endpoint failed.
        """
        if not isinstance(question, str) or not question.strip():
            raise AgentArgumentError(f"question must be a non-blank string, got {question!r}")
        started = time.perf_counter()
        run = _Run(self.session)
        if self.client is None:
            raw, notes = self.policy.answer(question, run.policy_runner, self._similarity())
            checks: tuple[CitationCheck, ...] | None = None
        else:
            raw, notes, checks = self._llm_answer(question, run)
        return self._finish(question, run, raw, notes, checks, started)

    def _similarity(self) -> Similarity:
        return embedding_similarity(self.session.graph.embedder)

    # -- the model loop ----------------------------------------------------------------
    def _llm_answer(self, question: str, run: _Run) -> tuple[str, list[str], tuple[CitationCheck, ...] | None]:
        client = self.client
        if client is None:
            raise AgentArgumentError("no chat endpoint configured; pass llm=LLMSettings(...)")
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": question},
        ]
        tools = openai_tools(AGENT_TOOLS)
        notes: list[str] = []
        retries = self.citation_retries
        answer = ""
        for turn in range(1, self.max_turns + 1):
            reply = client.complete(messages, tools)
            messages.append(reply.message)
            if reply.tool_calls:
                for call in reply.tool_calls:
                    outcome = run.tool(call.name, call.arguments, f"model turn {turn}")
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": _tool_message(outcome)})
                continue
            answer = reply.content.strip()
            if not find_citations(answer):
                return answer, notes, ()
            checked = run.tool("check_citations", {"answer": answer}, f"check the model's answer (turn {turn})")
            rejected = _rejected(checked)
            if not rejected:
                return answer, notes, _checks(checked)
            if retries <= 0:
                return answer, notes, None
            retries -= 1
            listed = "; ".join(f"{c} ({r})" for c, r in rejected.items())
            notes.append(f"check_citations rejected {len(rejected)} citation(s) ({listed}); the model was asked to fix them")
            messages.append({
                "role": "user",
                "content": (
                    f"check_citations rejected these citations: {listed}. A citation is valid only if you "
                    "fetched that exact id with fetch_evidence in this session. Fetch the passages you rely "
                    "on (and check they state the claim), or remove the claims they support; then give the "
                    "complete answer again."
                ),
            })
        notes.append(f"the model gave no final answer within {self.max_turns} turns")
        return answer, notes, None

    # -- the end of every run: check, drop, render ----------------------------------------
    def _finish(
        self,
        question: str,
        run: _Run,
        raw: str,
        notes: list[str],
        checks: tuple[CitationCheck, ...] | None,
        started: float,
    ) -> AgentAnswer:
        raw = raw.strip()
        if find_citations(raw) and checks is None:
            checked = run.tool("check_citations", {"answer": raw}, "check every citation before answering")
            rejected = _rejected(checked)
            if rejected:
                raw, dropped = drop_invalid(raw, rejected)
                notes.extend(dropped)
                lost = sum(1 for n in dropped if n.startswith("dropped the claim"))
                if lost:
                    raw = (raw + "\n\n" if raw else "") + (
                        f"(Removed {lost} claim{'s' if lost > 1 else ''} whose citation could not be verified "
                        "against the passages fetched.)"
                    )
                if find_citations(raw):
                    again = run.tool("check_citations", {"answer": raw}, "check the answer after removing claims")
                    if _rejected(again):  # cannot happen: only fetched ids remain; never emit them anyway
                        raw = strip_citations(raw, set(_rejected(again)))
                        notes.append("removed citations that still failed the check")
        if not raw:
            raw = "The passages in scope do not answer this question."
            notes.append("no answer could be supported by fetched passages")
        render_started = time.perf_counter()
        rendered: RenderedAnswer = self.session.render_citations(raw)
        run.steps.append(
            Step(len(run.steps) + 1, "render_citations", {"answer": raw}, tuple(r.id for r in rendered.references),
                 time.perf_counter() - render_started, None, "number the sources")
        )
        return AgentAnswer(
            question=question,
            text=rendered.text,
            body=rendered.body,
            raw=raw,
            references=rendered.references,
            checks=rendered.checks,
            steps=tuple(run.steps),
            notes=tuple(notes),
            policy=self.policy_name,
            seconds=time.perf_counter() - started,
        )


def _rejected(outcome: ToolOutcome) -> dict[str, str]:
    """Rejected citation (as written) -> reason, from a check_citations outcome."""
    if not outcome.ok:
        return {}
    return {c["citation"]: c["reason"] for c in outcome.data.get("checks", ()) if not c["valid"]}


def _checks(outcome: ToolOutcome) -> tuple[CitationCheck, ...]:
    return tuple(
        CitationCheck(c["citation"], c["id"], c["valid"], c["reason"], c["message"], c.get("support"),
                      c.get("claim", ""), c.get("support_reason", ""))
        for c in outcome.data.get("checks", ())
    )


def _tool_message(outcome: ToolOutcome) -> str:
    """The tool result as the model reads it (JSON; an error as ``{"error": ...}``)."""
    payload: dict[str, Any] = {"error": outcome.error} if outcome.error else outcome.data
    text = json.dumps(payload, ensure_ascii=False)
    if len(text) > _MAX_TOOL_MESSAGE:
        text = text[: _MAX_TOOL_MESSAGE - 40] + ' ... [cut: ask for fewer results]"'
    return text
