"""The one registry of evidence tools: what the MCP server serves and the agent calls.

Each :class:`ToolSpec` is a tool's name, its pydantic argument model (the
arguments with the limits a remote caller may not exceed), its description
(as people and models read it), hints for MCP clients, which part of an
evidence session's memory it uses, and the evidence function it calls. The
MCP server (:mod:`agrag_lab.mcp`) and the agent (:mod:`agrag_lab.agent.tools`)
are both loops over :data:`TOOLS`; adding a tool is one entry here plus its
function.

The specs name their functions (``"module:function"`` in
:mod:`agrag_lab.evidence`), which are imported on a tool's first call: listing
the tools (an MCP server's ``tools/list``) imports no search, storage,
retrieval or embedding module.

Limits (a request beyond them is refused with a message, never clamped
silently): ``limit`` 1..50 hits or entities, 1..100 explored edges, ``depth``
1..3, 1..50 ids per fetch, queries up to 1,000 characters, answers up to
20,000 characters. What a tool returns is capped too (8,000 characters a
text, 200,000 an answer): a cut is marked ``capped``, and ``text_offset``
reads the rest (:mod:`agrag_lab.evidence.answer_cap`).

Examples
--------
>>> [spec.name for spec in TOOLS][:3]
['search_evidence', 'fetch_evidence', 'navigate']
>>> print(describe_validation_error(_validation_error("search_evidence", {"query": " ", "limit": 500})))
query: must not be blank; say what to look for (got ' '); limit: must be at most 50 (got 500)
>>> tool("explore").arguments.model_validate({"entity": "Ada Lovelace"}).depth
1
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from agrag_lab import recipes
from agrag_lab.evidence.answer_cap import cap_answer
from agrag_lab.evidence.errors import ToolArgumentError
from agrag_lab.evidence.limits import (
    MAX_ANSWER_CHARS,
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_EXPLORE_LIMIT,
    MAX_FETCH_IDS,
    MAX_ID_CHARS,
    MAX_QUERY_CHARS,
    MAX_RELATION_TYPES,
    MAX_RESULTS,
    MAX_TEXT_OFFSET,
)
from agrag_lab.evidence.results import (
    CitationReport,
    DiscoverResult,
    DocumentList,
    EntitiesResult,
    ExploreResult,
    FetchResult,
    Navigation,
    RecipeSearchResult,
    RenderedAnswer,
)

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_DEPTH",
    "MAX_DOCUMENTS",
    "MAX_EXPLORE_LIMIT",
    "MAX_FETCH_IDS",
    "MAX_ID_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_RESULTS",
    "TOOLS",
    "Hints",
    "Memory",
    "ToolArguments",
    "ToolSpec",
    "describe_validation_error",
    "parse_arguments",
    "run_tool",
    "tool",
]



def _not_blank(value: str) -> str:
    if not value.strip():
        raise ToolArgumentError("must not be blank; say what to look for")  # pydantic reports it as a value error
    return value


# -- typed arguments ---------------------------------------------------------------------

Query = Annotated[
    str,
    Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look for: a question or a few keywords."),
    AfterValidator(_not_blank),
]
SearchMode = Annotated[
    Literal["keyword", "vector", "hybrid"],
    Field(description="keyword (BM25), vector (embedding similarity) or hybrid (both, fused with RRF, k=60)."),
]
Limit = Annotated[int, Field(strict=True, ge=1, le=MAX_RESULTS, description=f"Most results to return (1-{MAX_RESULTS}).")]
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
Depth = Annotated[int, Field(strict=True, ge=1, le=MAX_DEPTH, description=f"How many hops to follow (1-{MAX_DEPTH}).")]
ExploreLimit = Annotated[
    int, Field(strict=True, ge=1, le=MAX_EXPLORE_LIMIT, description=f"Most edges to return (1-{MAX_EXPLORE_LIMIT}).")
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
def _known_recipe(value: str) -> str:
    name = value.strip().upper()
    if name not in recipes.names():
        raise ToolArgumentError(
            f"must be one of {', '.join(recipes.names())} (got {value!r}); a tool takes a recipe by name, never a path"
        )
    return name


#: A recipe :func:`agrag_lab.recipes.get` knows by name: the spec's built-ins, the recommended one and the peers'.
RecipeName = Annotated[
    str,
    Field(
        description=f"A recipe by name: {', '.join(recipes.names())} "
        f"({recipes.RECOMMENDED.name} is the recommended one for multi-hop questions).",
        json_schema_extra={"enum": list(recipes.names())},
    ),
    AfterValidator(_known_recipe),
]
RecipeLimit = Annotated[
    int | None, Field(strict=True, ge=1, le=MAX_RESULTS, description=f"Most results (1-{MAX_RESULTS}); default: the recipe's own limit.")
]


TextOffset = Annotated[
    int,
    Field(
        strict=True, ge=0, le=MAX_TEXT_OFFSET,
        description="Where to start every text the answer had to cut (default 0): an answer marked 'capped' "
        "gives the next offset in capped.next_text_offset.",
    ),
]


class ToolArguments(BaseModel):
    """Base of every argument model: frozen, no argument it does not declare, and ``text_offset``
    (every tool's answer is capped: :mod:`agrag_lab.evidence.answer_cap`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text_offset: TextOffset = 0


class SearchEvidenceArgs(ToolArguments):
    """Arguments of ``search_evidence``."""

    query: Query
    mode: SearchMode = "hybrid"
    limit: Limit = 10


class FetchEvidenceArgs(ToolArguments):
    """Arguments of ``fetch_evidence``."""

    ids: EvidenceIds


class NavigateArgs(ToolArguments):
    """Arguments of ``navigate``."""

    id: EvidenceIdArg
    to: NavigateTo


class FindEntitiesArgs(ToolArguments):
    """Arguments of ``find_entities``."""

    query: Query
    limit: Limit = 10


class ExploreArgs(ToolArguments):
    """Arguments of ``explore``."""

    entity: EntityRefArg
    depth: Depth = 1
    relation_types: RelationTypes = None
    limit: ExploreLimit = 20
    direction: ExploreDirection = "both"


class CheckCitationsArgs(ToolArguments):
    """Arguments of ``check_citations``: exactly one of ``answer`` and ``ids``."""

    answer: Annotated[Answer | None, Field(description="An answer text citing evidence ids inline.")] = None
    ids: Annotated[EvidenceIds | None, Field(description="Or: the evidence ids to check.")] = None

    @model_validator(mode="after")
    def _one_of(self) -> CheckCitationsArgs:
        if (self.answer is None) == (self.ids is None):
            raise ToolArgumentError("give exactly one of answer (a text citing ids) or ids (a list of evidence ids)")
        return self


class RenderCitationsArgs(ToolArguments):
    """Arguments of ``render_citations``."""

    answer: Answer


class SearchArgs(ToolArguments):
    """Arguments of ``search`` (a recipe over the knowledge graph)."""

    query: Query
    recipe: RecipeName = "HYBRID"
    limit: RecipeLimit = None


class ListDocumentsArgs(ToolArguments):
    """Arguments of ``list_documents``."""

    limit: Annotated[int, Field(strict=True, ge=1, le=MAX_DOCUMENTS, description=f"Most documents to list (1-{MAX_DOCUMENTS}).")] = 100


# -- the registry ------------------------------------------------------------------------


@dataclass(frozen=True)
class Hints:
    """What a tool does to the world, for clients that ask (MCP tool annotations).

    Every evidence tool is non-destructive and closed-world (it reads one
    index); ``read_only`` is false for a tool that writes an evidence
    session's memory.
    """

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False


READ_ONLY = Hints()
REMEMBERS = Hints(read_only=False)

#: Which part of an evidence session's fetch memory a tool uses: ``none`` (any
#: session in the scope will do), ``writes`` (it remembers what it read: a
#: caller's own session, opened if it has none) or ``reads`` (it checks
#: against what was fetched: the caller's existing session).
Memory = Literal["none", "writes", "reads"]

#: Whether the built-in agent's model is offered a tool (``offered``), the
#: agent may call it itself (``callable``), or the agent does not know it.
AgentUse = Literal["offered", "callable", "none"]


def _no_ids(data: Mapping[str, Any]) -> list[str]:
    return []


@dataclass(frozen=True)
class ToolSpec:
    """One evidence tool.

    Attributes
    ----------
    name : str
        The tool name (as MCP clients and models call it).
    arguments : type of ToolArguments
        The argument model: names, types, defaults, limits, descriptions.
    description : str
        What the tool does and returns, as its callers read it.
    calls : str
        Where the evidence function it calls lives: ``"module:function"``, the
        module in :mod:`agrag_lab.evidence`, imported on first use
        (:attr:`function`).
    result : type
        The frozen dataclass ``function`` returns (its fields are the output schema).
    hints : Hints
        Read-only, destructive, idempotent, open-world.
    memory : {"none", "writes", "reads"}
        Which part of an evidence session's memory the call uses.
    agent : {"offered", "callable", "none"}
        How the built-in agent uses it.
    ids : callable
        The evidence (and entity) ids a result's data names, in order.
    """

    name: str
    arguments: type[ToolArguments]
    description: str
    calls: str
    result: type
    hints: Hints = READ_ONLY
    memory: Memory = "none"
    agent: AgentUse = "offered"
    ids: Callable[[Mapping[str, Any]], list[str]] = _no_ids

    @cached_property
    def function(self) -> Callable[..., Any]:
        """``function(session, **arguments)``: the evidence function :attr:`calls` names.

        It returns a result with ``to_dict()``.
        """
        module, _, name = self.calls.partition(":")
        found: Callable[..., Any] = getattr(importlib.import_module(f"agrag_lab.evidence.{module}"), name)
        return found

    def run(self, session: EvidenceSession, args: ToolArguments) -> dict[str, Any]:
        """Run on ``session`` with validated ``args``; the result as JSON-safe data.

        Raises
        ------
        AgragError
            What the evidence function raised (unknown entity, malformed id...).
        """
        arguments = dict(args)
        offset = arguments.pop("text_offset", 0)
        result = self.function(session, **arguments)
        return cap_answer(result.to_dict(), offset=offset)

    def result_ids(self, data: Mapping[str, Any]) -> tuple[str, ...]:
        """The ids ``data`` (a result of this tool) names, each once, in order."""
        return tuple(dict.fromkeys(i for i in self.ids(data) if i))


_CITE_RULE = (
    "Snippets are for choosing, not citing: call fetch_evidence on an id to read its exact text; "
    "only fetched ids pass check_citations."
)


def _check(session: EvidenceSession, answer: str | None = None, ids: list[str] | None = None) -> CitationReport:
    from agrag_lab.evidence import citations

    return citations.check_citations(session, answer if answer is not None else list(ids or ()))


def _entity_ids(data: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for e in data.get("entities", ()):
        out.append(e["id"])
        out.extend(p["id"] for p in e.get("passages", ()))
    return out


def _explored_ids(data: Mapping[str, Any]) -> list[str]:
    out = [s["id"] for edge in data.get("edges", ()) for s in edge.get("support", ())]
    return out + [r["entity"]["id"] for r in data.get("reached", ())]


#: Every evidence tool, in the order they are listed.
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "search_evidence",
        SearchEvidenceArgs,
        "Search the text of the current document versions in this server's scope. mode is keyword "
        "(BM25), vector (embedding similarity) or hybrid (both, fused with Reciprocal Rank Fusion, "
        "k=60). Returns hits best first, each with an evidence id (DOCUMENT@VERSION#cN), a snippet "
        "around the match, the title and a location (heading path, character offsets), and a status: "
        "ok; partial (a search leg failed: legs names it and why); truncated (more candidates than "
        f"limit). {_CITE_RULE}",
        "search:discover",
        DiscoverResult,
        ids=lambda data: [h["id"] for h in data.get("hits", ())],
    ),
    ToolSpec(
        "fetch_evidence",
        FetchEvidenceArgs,
        "Return the exact stored text behind evidence ids, one entry per id in request order. A chunk "
        "id (DOC@VER#cN) gives the chunk; a span id (DOC@VER#sSTART-END) gives that character range, "
        "and a span running past the end of the text is returned as far as it goes, marked partial. "
        "Each entry says whether its version is current or superseded (an old id keeps working). A "
        "malformed or unknown id gives an error entry for that id only; an id outside the scope is "
        "reported exactly like an id that does not exist. Fetched ids are remembered by the evidence "
        "session: only they pass check_citations.",
        "reading:fetch",
        FetchResult,
        hints=REMEMBERS,
        memory="writes",
        ids=lambda data: [i["id"] for i in data.get("items", ()) if i.get("ok")],
    ),
    ToolSpec(
        "navigate",
        NavigateArgs,
        "Move from a passage to its neighbours: parent (the enclosing section), children, siblings, "
        "prev / next (the adjacent chunk), or table (the rows and cells around a table cell or row, "
        "with the column headers). Returns ids with titles and snippets; fetch them to read or cite.",
        "navigation:navigate",
        Navigation,
        ids=lambda data: [i["id"] for i in data.get("items", ())],
    ),
    ToolSpec(
        "find_entities",
        FindEntitiesArgs,
        "Find knowledge-graph entities by name (keyword) and by embedding similarity. Each entity "
        "comes with its label, description and up to three supporting passages in scope (evidence ids "
        "and snippets). Pass an entity's id or name to explore to follow its relations.",
        "entities:find_entities",
        EntitiesResult,
        ids=_entity_ids,
    ),
    ToolSpec(
        "explore",
        ExploreArgs,
        "Follow relations outward from an entity (its id or exact name) up to depth hops. Each edge is "
        "an assertion (a passage in scope states it: support gives the evidence id and sentence) or a "
        "path (a connection in the graph with no visible supporting passage: not citable as a fact).",
        "entities:explore",
        ExploreResult,
        ids=_explored_ids,
    ),
    ToolSpec(
        "check_citations",
        CheckCitationsArgs,
        "Check citations against what this evidence session fetched. Give answer (a text citing "
        "evidence ids inline) or ids (a list). Each citation is valid only if it was fetched in this "
        "session; otherwise the reason is not_fetched, out_of_scope, malformed or unknown. Text that looks "
        "like a citation ([1], [Smith 2020]) but is not an evidence id nor an id the index knows is listed "
        "with reason unresolved. all_valid is true only if there is at least one citation and every one is "
        "valid: an answer that cites nothing is not valid (reason: no citation found).",
        "tools:_check",
        CitationReport,
        memory="reads",
        ids=lambda data: [c["id"] or c["citation"] for c in data.get("checks", ()) if c.get("valid")],
    ),
    ToolSpec(
        "render_citations",
        RenderCitationsArgs,
        "Turn the valid evidence ids cited in an answer into numbered references [1], [2], ... "
        "(invalid ones and unresolved look-alikes such as a bare [1] become [?]) and append a Sources list: title, heading path, version, and "
        "whether that version is superseded.",
        "citations:render_citations",
        RenderedAnswer,
        memory="reads",
        agent="callable",
        ids=lambda data: [r["id"] for r in data.get("references", ())],
    ),
    ToolSpec(
        "search",
        SearchArgs,
        "Run a named retrieval recipe over the knowledge graph, within the scope: ENTITY, CHUNK, HYBRID, "
        "HYBRID_RERANKED (community reports, cross-encoder re-rank), GRAPH_EXPAND (graph walk, community "
        "reports), THEMATIC (community reports) or "
        f"{recipes.RECOMMENDED.name} (dense passages fused with a graph walk: the recommended one for multi-hop "
        "questions). Returns ranked entities, chunks and community reports, "
        "each with its explanation: which methods found it at which rank, its Reciprocal Rank Fusion terms, "
        "graph-walk path or re-rank move, and the cut. passages lists the evidence ids behind a result; "
        "fetch them before citing. status is partial when a method or one of its legs failed (the "
        "embedding model or the vector store is down): methods says which and why, and the results come "
        "from the legs that answered.",
        "recipe_search:search",
        RecipeSearchResult,
        agent="none",
        ids=lambda data: [r["id"] for r in data.get("results", ())],
    ),
    ToolSpec(
        "list_documents",
        ListDocumentsArgs,
        "List the documents in this server's scope that search can return, by id: each with its title, "
        "its current version (the VERSION part of its evidence ids) and how many chunks that version has; "
        "total counts them all and truncated says whether limit cut the list.",
        "listing:list_documents",
        DocumentList,
        agent="callable",
    ),
)

_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


def tool(name: str) -> ToolSpec:
    """The spec of tool ``name``.

    Raises
    ------
    ToolArgumentError
        No tool has this name (the message lists the tools).
    """
    found = _BY_NAME.get(name)
    if found is None:
        raise ToolArgumentError(f"unknown tool {name!r}; the tools are {', '.join(_BY_NAME)}")
    return found


# -- validation --------------------------------------------------------------------------

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
        tool(name).arguments.model_validate(dict(arguments))
    except ValidationError as exc:
        return exc
    raise ToolArgumentError(f"arguments {dict(arguments)!r} are valid for {name}")


def parse_arguments(spec: ToolSpec, arguments: Mapping[str, Any] | str | None) -> ToolArguments:
    """Validate raw arguments (a mapping or a JSON object text) for ``spec``.

    Raises
    ------
    ToolArgumentError
        Arguments that are not a JSON object, or invalid values (the message
        names each field and what is wrong).
    """
    raw: Any = arguments if arguments is not None else {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolArgumentError(
                f"arguments of {spec.name} are not valid JSON ({exc.msg}); send a JSON object"
            ) from exc
    if not isinstance(raw, Mapping):
        raise ToolArgumentError(f"arguments of {spec.name} must be a JSON object, not {type(raw).__name__}")
    try:
        return spec.arguments.model_validate(dict(raw))
    except ValidationError as exc:
        raise ToolArgumentError(f"invalid arguments for {spec.name}: {describe_validation_error(exc)}") from exc


def run_tool(
    session: EvidenceSession, name: str, arguments: Mapping[str, Any] | str | None,
    names: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Validate and run tool ``name`` on ``session``; its result as JSON-safe data.

    ``names`` limits the tools that may be called (default every tool).

    Raises
    ------
    ToolArgumentError
        An unknown tool or invalid arguments.
    AgragError
        What the evidence function raised.
    """
    allowed = tuple(names) if names is not None else tuple(_BY_NAME)
    if name not in allowed:
        raise ToolArgumentError(f"unknown tool {name!r}; the tools are {', '.join(allowed)}")
    spec = tool(name)
    return spec.run(session, parse_arguments(spec, arguments))
