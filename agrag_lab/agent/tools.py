"""The evidence tools as an agent or an MCP client calls them.

One catalogue serves both the built-in :class:`~agrag_lab.agent.Agent` and
the MCP server (:mod:`agrag_lab.mcp_server`): the tool names of the spec,
their descriptions, their typed arguments (with the limits a remote caller may
not exceed) and one executor, :func:`call_tool`, that runs a tool on an
:class:`~agrag_lab.evidence.session.EvidenceSession` and returns JSON-safe data
plus the ids the result names.

Limits (a request beyond them is refused with a message, never clamped
silently): ``limit`` 1..50 hits or entities, 1..100 explored edges, ``depth``
1..3, 1..50 ids per fetch, queries up to 1,000 characters, answers up to
20,000 characters.

Examples
--------
>>> sorted(ARGUMENT_MODELS)[:3]
['check_citations', 'explore', 'fetch_evidence']
>>> print(describe_validation_error(_validation_error("search_evidence", {"query": " ", "limit": 500})))
query: must not be blank; say what to look for (got ' '); limit: must be at most 50 (got 500)
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from agrag_lab.errors import AgragError

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession

__all__ = [
    "AGENT_TOOLS",
    "ARGUMENT_MODELS",
    "DESCRIPTIONS",
    "MAX_ANSWER_CHARS",
    "MAX_DEPTH",
    "MAX_EXPLORE_LIMIT",
    "MAX_FETCH_IDS",
    "MAX_ID_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_RESULTS",
    "ToolOutcome",
    "call_tool",
    "describe_validation_error",
    "openai_tools",
    "result_ids",
]

#: Most hits or entities one call returns.
MAX_RESULTS = 50
#: Most ids one fetch may ask for.
MAX_FETCH_IDS = 50
#: Deepest exploration, in hops.
MAX_DEPTH = 3
#: Most edges one exploration returns.
MAX_EXPLORE_LIMIT = 100
#: Longest query, in characters.
MAX_QUERY_CHARS = 1000
#: Longest evidence id or entity reference, in characters.
MAX_ID_CHARS = 300
#: Longest answer text given to check or render, in characters.
MAX_ANSWER_CHARS = 20_000
#: Most relation types one exploration may name.
MAX_RELATION_TYPES = 20


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank; say what to look for")
    return value


# -- typed arguments (shared by the MCP tool signatures and the agent) -------------------

Query = Annotated[
    str,
    Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look for: a question or a few keywords."),
    AfterValidator(_not_blank),
]
SearchMode = Annotated[
    Literal["keyword", "vector", "hybrid"],
    Field(description="keyword (BM25), vector (embedding similarity) or hybrid (both, fused with RRF, k=60)."),
]
Limit = Annotated[int, Field(ge=1, le=MAX_RESULTS, description=f"Most results to return (1-{MAX_RESULTS}).")]
EvidenceIdArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="An evidence id exactly as returned by a tool: DOCUMENT@VERSION#cN (a chunk) "
        "or DOCUMENT@VERSION#sSTART-END (a character span).",
    ),
]
EvidenceIds = Annotated[
    list[EvidenceIdArg],
    Field(min_length=1, max_length=MAX_FETCH_IDS, description=f"1-{MAX_FETCH_IDS} evidence ids."),
]
NavigateTo = Annotated[
    Literal["parent", "children", "siblings", "prev", "next", "table"],
    Field(
        description="parent (the enclosing section), children (sub-sections and chunks), siblings, "
        "prev / next (the adjacent chunk), table (the rows and cells around a table cell or row)."
    ),
]
EntityRefArg = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID_CHARS, description="An entity id or its exact name, as find_entities gives it."),
    AfterValidator(_not_blank),
]
Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH, description=f"How many hops to follow (1-{MAX_DEPTH}).")]
ExploreLimit = Annotated[
    int, Field(ge=1, le=MAX_EXPLORE_LIMIT, description=f"Most edges to return (1-{MAX_EXPLORE_LIMIT}).")
]
RelationTypes = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=100)]] | None,
    Field(max_length=MAX_RELATION_TYPES, description="Only follow these relation types (default: all)."),
]
ExploreDirection = Annotated[
    Literal["out", "in", "both"],
    Field(description="Follow relations out of the entity, into it, or both (default)."),
]
Answer = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ANSWER_CHARS,
        description="An answer text that cites evidence ids inline, e.g. 'Ada wrote Note G [ada@0123456789ab#c3].'",
    ),
]
SessionHandle = Annotated[
    str | None,
    Field(
        max_length=100,
        description="The evidence session handle returned by open_session or an earlier fetch_evidence; "
        "omit it to use this connection's default session (stdio, legacy HTTP sessions).",
    ),
]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SearchEvidenceArgs(_Args):
    """Arguments of ``search_evidence``."""

    query: Query
    mode: SearchMode = "hybrid"
    limit: Limit = 10


class FetchEvidenceArgs(_Args):
    """Arguments of ``fetch_evidence``."""

    ids: EvidenceIds


class NavigateArgs(_Args):
    """Arguments of ``navigate``."""

    id: EvidenceIdArg
    to: NavigateTo


class FindEntitiesArgs(_Args):
    """Arguments of ``find_entities``."""

    query: Query
    limit: Limit = 10


class ExploreArgs(_Args):
    """Arguments of ``explore``."""

    entity: EntityRefArg
    depth: Depth = 1
    relation_types: RelationTypes = None
    limit: ExploreLimit = 20
    direction: ExploreDirection = "both"


class CheckCitationsArgs(_Args):
    """Arguments of ``check_citations``: exactly one of ``answer`` and ``ids``."""

    answer: Answer | None = None
    ids: EvidenceIds | None = None

    @model_validator(mode="after")
    def _one_of(self) -> CheckCitationsArgs:
        if (self.answer is None) == (self.ids is None):
            raise ValueError("give exactly one of answer (a text citing ids) or ids (a list of evidence ids)")
        return self


class RenderCitationsArgs(_Args):
    """Arguments of ``render_citations``."""

    answer: Answer


#: The argument model of each evidence tool.
ARGUMENT_MODELS: dict[str, type[_Args]] = {
    "search_evidence": SearchEvidenceArgs,
    "fetch_evidence": FetchEvidenceArgs,
    "navigate": NavigateArgs,
    "find_entities": FindEntitiesArgs,
    "explore": ExploreArgs,
    "check_citations": CheckCitationsArgs,
    "render_citations": RenderCitationsArgs,
}

#: The tools the built-in agent may call (it renders citations itself).
AGENT_TOOLS: tuple[str, ...] = (
    "search_evidence",
    "fetch_evidence",
    "navigate",
    "find_entities",
    "explore",
    "check_citations",
)

_CITE_RULE = (
    "Snippets are for choosing, not citing: call fetch_evidence on an id to read its exact text; "
    "only fetched ids pass check_citations."
)

#: What each tool does, as its callers (people and models) read it.
DESCRIPTIONS: dict[str, str] = {
    "search_evidence": (
        "Search the text of the current document versions in this server's scope. mode is keyword "
        "(BM25), vector (embedding similarity) or hybrid (both, fused with Reciprocal Rank Fusion, "
        "k=60). Returns hits best first, each with an evidence id (DOCUMENT@VERSION#cN), a snippet "
        "around the match, the title and a location (heading path, character offsets), and a status: "
        "ok; partial (a search leg failed: legs names it and why); truncated (more candidates than "
        f"limit). {_CITE_RULE}"
    ),
    "fetch_evidence": (
        "Return the exact stored text behind evidence ids, one entry per id in request order. A chunk "
        "id (DOC@VER#cN) gives the chunk; a span id (DOC@VER#sSTART-END) gives that character range, "
        "and a span running past the end of the text is returned as far as it goes, marked partial. "
        "Each entry says whether its version is current or superseded (an old id keeps working). A "
        "malformed or unknown id gives an error entry for that id only; an id outside the scope is "
        "reported exactly like an id that does not exist. Fetched ids are remembered by the evidence "
        "session: only they pass check_citations."
    ),
    "navigate": (
        "Move from a passage to its neighbours: parent (the enclosing section), children, siblings, "
        "prev / next (the adjacent chunk), or table (the rows and cells around a table cell or row, "
        "with the column headers). Returns ids with titles and snippets; fetch them to read or cite."
    ),
    "find_entities": (
        "Find knowledge-graph entities by name (keyword) and by embedding similarity. Each entity "
        "comes with its label, description and up to three supporting passages in scope (evidence ids "
        "and snippets). Pass an entity's id or name to explore to follow its relations."
    ),
    "explore": (
        "Follow relations outward from an entity (its id or exact name) up to depth hops. Each edge is "
        "an assertion (a passage in scope states it: support gives the evidence id and sentence) or a "
        "path (a connection in the graph with no visible supporting passage: not citable as a fact)."
    ),
    "check_citations": (
        "Check citations against what this evidence session fetched. Give answer (a text citing "
        "evidence ids inline) or ids (a list). Each citation is valid only if it was fetched in this "
        "session; otherwise the reason is not_fetched, out_of_scope, malformed or unknown."
    ),
    "render_citations": (
        "Turn the valid evidence ids cited in an answer into numbered references [1], [2], ... "
        "(invalid ones become [?]) and append a Sources list: title, heading path, version, and "
        "whether that version is superseded."
    ),
}


# -- errors ----------------------------------------------------------------------------

_LOCATION_NAMES = {"__root__": "arguments"}


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem: ``field: what is wrong (got value)``.

    Examples
    --------
    >>> describe_validation_error(_validation_error("navigate", {"id": "x@1#c1", "to": "up"}))
    "to: must be one of 'parent', 'children', 'siblings', 'prev', 'next' or 'table' (got 'up')"
    """
    parts: list[str] = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        where = _LOCATION_NAMES.get(where, where)
        kind = err["type"]
        ctx = err.get("ctx") or {}
        got = err.get("input")
        if kind == "extra_forbidden":
            parts.append(f"{where}: unexpected argument")
            continue
        if kind == "missing":
            parts.append(f"{where}: required")
            continue
        if kind == "less_than_equal":
            message = f"must be at most {ctx.get('le')}"
        elif kind == "greater_than_equal":
            message = f"must be at least {ctx.get('ge')}"
        elif kind == "string_too_short":
            message = "must not be empty"
        elif kind == "string_too_long":
            message = f"is too long (at most {ctx.get('max_length')} characters)"
        elif kind == "too_short":
            message = f"needs at least {ctx.get('min_length')} item(s)"
        elif kind == "too_long":
            message = f"takes at most {ctx.get('max_length')} items"
        elif kind == "literal_error":
            message = "must be one of " + str(ctx.get("expected"))
        elif kind == "value_error":
            message = str(ctx.get("error", err["msg"]))
        else:
            message = err["msg"][0].lower() + err["msg"][1:]
        shown = repr(got) if not isinstance(got, (dict, list)) else json.dumps(got)[:80]
        parts.append(f"{where}: {message} (got {shown[:80]})" if "input" in err and where != "arguments"
                     else f"{where}: {message}")
    return "; ".join(parts)


def _validation_error(name: str, arguments: Mapping[str, Any]) -> ValidationError:
    """The validation error of ``arguments`` for tool ``name`` (for examples and tests)."""
    try:
        ARGUMENT_MODELS[name].model_validate(dict(arguments))
    except ValidationError as exc:
        return exc
    raise ValueError(f"arguments {dict(arguments)!r} are valid for {name}")


# -- running a tool ----------------------------------------------------------------------


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call did: its data (JSON-safe), the ids it names, or its error.

    Attributes
    ----------
    name : str
        The tool.
    arguments : dict
        The arguments as given.
    data : dict
        The result as JSON-safe data (``{}`` on error).
    ids : tuple of str
        Evidence ids (and entity ids) the result names, in order.
    error : str or None
        Why the call failed, as a message the caller can act on.
    seconds : float
        Wall time of the call.
    """

    name: str
    arguments: dict[str, Any]
    data: dict[str, Any] = field(default_factory=dict)
    ids: tuple[str, ...] = ()
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.error is None


def _unique(ids: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in ids if i))


def result_ids(name: str, data: Mapping[str, Any]) -> tuple[str, ...]:
    """The ids a tool result names (hits, fetched texts, items, entities, supports, references).

    Examples
    --------
    >>> result_ids("fetch_evidence", {"items": [{"id": "a@0123456789ab#c1", "ok": True},
    ...                                          {"id": "bad", "ok": False}]})
    ('a@0123456789ab#c1',)
    """
    ids: list[str] = []
    if name in ("search_evidence", "discover"):
        ids = [h["id"] for h in data.get("hits", ())]
    elif name in ("fetch_evidence", "fetch"):
        ids = [i["id"] for i in data.get("items", ()) if i.get("ok")]
    elif name == "navigate":
        ids = [i["id"] for i in data.get("items", ())]
    elif name == "find_entities":
        for e in data.get("entities", ()):
            ids.append(e["id"])
            ids.extend(p["id"] for p in e.get("passages", ()))
    elif name == "explore":
        for edge in data.get("edges", ()):
            ids.extend(s["id"] for s in edge.get("support", ()))
        ids.extend(r["entity"]["id"] for r in data.get("reached", ()))
    elif name == "check_citations":
        ids = [c["id"] or c["citation"] for c in data.get("checks", ()) if c.get("valid")]
    elif name == "render_citations":
        ids = [r["id"] for r in data.get("references", ())]
    elif name == "search":
        ids = [r["id"] for r in data.get("results", ())]
    return _unique(ids)


def execute(session: EvidenceSession, name: str, args: BaseModel) -> dict[str, Any]:
    """Run tool ``name`` with validated ``args`` on ``session``; the result as JSON-safe data.

    Raises
    ------
    AgragError
        What the evidence function raised (unknown entity, malformed id...).
    KeyError
        ``name`` is not an evidence tool.
    """
    if isinstance(args, SearchEvidenceArgs):
        return session.discover(args.query, mode=args.mode, limit=args.limit).to_dict()
    if isinstance(args, FetchEvidenceArgs):
        return session.fetch(args.ids).to_dict()
    if isinstance(args, NavigateArgs):
        return session.navigate(args.id, args.to).to_dict()
    if isinstance(args, FindEntitiesArgs):
        return session.find_entities(args.query, limit=args.limit).to_dict()
    if isinstance(args, ExploreArgs):
        return session.explore(
            args.entity, depth=args.depth, relation_types=args.relation_types, limit=args.limit,
            direction=args.direction,
        ).to_dict()
    if isinstance(args, CheckCitationsArgs):
        target: str | list[str] = args.answer if args.answer is not None else list(args.ids or ())
        return session.check_citations(target).to_dict()
    if isinstance(args, RenderCitationsArgs):
        return session.render_citations(args.answer).to_dict()
    raise KeyError(f"{name!r} is not an evidence tool; use one of {', '.join(ARGUMENT_MODELS)}")


def parse_arguments(name: str, arguments: Mapping[str, Any] | str | None) -> BaseModel:
    """Validate raw arguments (a mapping or a JSON object text) for tool ``name``.

    Raises
    ------
    ToolArgumentError
        Unknown tool, arguments that are not a JSON object, or invalid values
        (the message names each field and what is wrong).
    """
    from agrag_lab.agent.errors import ToolArgumentError

    model = ARGUMENT_MODELS.get(name)
    if model is None:
        raise ToolArgumentError(f"unknown tool {name!r}; the tools are {', '.join(ARGUMENT_MODELS)}")
    raw: Any = arguments if arguments is not None else {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolArgumentError(f"arguments of {name} are not valid JSON ({exc.msg}); send a JSON object") from exc
    if not isinstance(raw, Mapping):
        raise ToolArgumentError(f"arguments of {name} must be a JSON object, not {type(raw).__name__}")
    try:
        return model.model_validate(dict(raw))
    except ValidationError as exc:
        raise ToolArgumentError(f"invalid arguments for {name}: {describe_validation_error(exc)}") from exc


def call_tool(session: EvidenceSession, name: str, arguments: Mapping[str, Any] | str | None) -> ToolOutcome:
    """Validate and run one tool call; never raises for a bad call.

    Parameters
    ----------
    session : EvidenceSession
        The session (and so the scope and the fetch memory) to run in.
    name : str
        A tool of :data:`ARGUMENT_MODELS`.
    arguments : mapping or str or None
        The arguments, or their JSON text (as a model sends them).

    Returns
    -------
    ToolOutcome
        The data and ids, or the error message.
    """
    started = time.perf_counter()
    shown: dict[str, Any]
    if isinstance(arguments, Mapping):
        shown = dict(arguments)
    elif isinstance(arguments, str):
        try:
            loaded = json.loads(arguments) if arguments.strip() else {}
            shown = loaded if isinstance(loaded, dict) else {"_raw": arguments}
        except json.JSONDecodeError:
            shown = {"_raw": arguments}
    else:
        shown = {}
    try:
        args = parse_arguments(name, arguments)
        data = execute(session, name, args)
    except AgragError as exc:
        return ToolOutcome(name, shown, error=str(exc), seconds=time.perf_counter() - started)
    return ToolOutcome(name, shown, data, result_ids(name, data), seconds=time.perf_counter() - started)


def openai_tools(names: Sequence[str] = AGENT_TOOLS) -> list[dict[str, Any]]:
    """The tools as OpenAI-compatible ``tools`` entries (function name, description, JSON schema)."""
    out = []
    for name in names:
        schema = ARGUMENT_MODELS[name].model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        out.append({"type": "function", "function": {"name": name, "description": DESCRIPTIONS[name], "parameters": schema}})
    return out
