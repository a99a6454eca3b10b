"""The built-in agent: answers with citations checked against what it fetched.

:class:`Agent` runs a tool loop over the evidence functions (the same ones the
MCP server serves): discover, fetch, navigate, explore, then an answer whose
every citation passes ``check_citations``. With an OpenAI-compatible chat
endpoint (:class:`LLMSettings`, or ``AGRAG_LLM_BASE_URL`` / ``AGRAG_LLM_MODEL``
/ ``AGRAG_LLM_API_KEY``) a model drives the loop; without one a deterministic
extractive policy answers offline. ``agrag-lab ask "QUESTION" --index DIR``
prints the answer with numbered Sources.

Examples
--------
>>> from agrag_lab import Graph                                         # doctest: +SKIP
>>> agent = Agent(Graph.open("index", read_only=True).evidence())      # doctest: +SKIP
>>> answer = agent.ask("When and where was Charles Babbage born?")     # doctest: +SKIP
>>> answer.all_valid, answer.steps_frame()                              # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.agent.core import SYSTEM_PROMPT, Agent
from agrag_lab.agent.errors import AgentArgumentError, LLMError, ToolArgumentError
from agrag_lab.agent.policy import ExtractivePolicy
from agrag_lab.agent.record import AgentAnswer, Step
from agrag_lab.agent.tools import AGENT_TOOLS, DESCRIPTIONS, ToolOutcome, call_tool, openai_tools
from agrag_lab.llm import ChatClient, ChatReply, LLMSettings, ToolCall

if TYPE_CHECKING:
    from agrag_lab.cli_options import Subcommands


__all__ = [
    "AGENT_TOOLS",
    "DESCRIPTIONS",
    "SYSTEM_PROMPT",
    "Agent",
    "AgentAnswer",
    "AgentArgumentError",
    "ChatClient",
    "ChatReply",
    "ExtractivePolicy",
    "LLMError",
    "LLMSettings",
    "Step",
    "ToolArgumentError",
    "ToolCall",
    "ToolOutcome",
    "call_tool",
    "openai_tools",
    "register",
]


def cmd_ask(args: argparse.Namespace) -> int:
    """Run ``agrag-lab ask``: print the answer with numbered Sources."""
    from agrag_lab.cli_options import graph_store_of
    from agrag_lab.evidence.scope import scope_from_args
    from agrag_lab.graph import Graph

    settings = None
    if not args.offline:
        settings = LLMSettings.from_env(base_url=args.llm_base_url, model=args.llm_model, api_key=None)
    scope = scope_from_args(args.scope_documents, args.scope_where)
    with (
        redirect_stdout(sys.stderr),
        Graph.open(Path(args.index), read_only=True, graph_store=graph_store_of(args)) as graph,
        Agent(graph.evidence(scope), settings, max_turns=args.max_turns) as agent,
    ):
        answer = agent.ask(args.question)
    if args.json:
        print(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(answer.text.rstrip())
    if answer.notes:
        print("\nNotes", file=sys.stderr)
        for note in answer.notes:
            print(f"- {note}", file=sys.stderr)
    if args.steps:
        print(f"\nSteps ({answer.policy}, {answer.seconds:.2f} s)\n{answer.format_steps()}", file=sys.stderr)
    return 0


def register(subparsers: Subcommands) -> None:
    """Add the ``ask`` sub-command to the ``agrag-lab`` parser."""
    from agrag_lab.cli_options import add_falkordb_option

    p = subparsers.add_parser(
        "ask",
        help="answer a question with checked citations (an LLM if configured, else offline)",
        description="Answer QUESTION from the index with numbered Sources; every citation was fetched. "
        "Uses the chat endpoint of --llm-base-url/--llm-model or AGRAG_LLM_BASE_URL/AGRAG_LLM_MODEL "
        "(key: AGRAG_LLM_API_KEY), else a deterministic extractive policy.",
    )
    p.add_argument("question")
    p.add_argument("--index", default=".agrag/workshop", help="index folder (opened read-only)")
    add_falkordb_option(p)
    p.add_argument("--scope-documents", nargs="+", metavar="ID", help="only these documents are readable")
    p.add_argument("--scope-where", action="append", metavar="KEY=VALUE", help="only documents with this metadata")
    p.add_argument("--llm-base-url", help="OpenAI-compatible API root, e.g. http://127.0.0.1:11434/v1")
    p.add_argument("--llm-model", help="the model name")
    p.add_argument("--offline", action="store_true", help="ignore any configured endpoint; answer extractively")
    p.add_argument("--max-turns", type=int, default=12, help="most model turns")
    p.add_argument("--steps", action="store_true", help="print every tool call to stderr")
    p.add_argument("--json", action="store_true", help="print the whole answer record as JSON")
    p.set_defaults(func=cmd_ask)
