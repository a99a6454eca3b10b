"""The MCP server and the agent are built from the one tool registry (no second description)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from mcp import Client
from mcp_support import TOOLS, data

from agrag_lab import Graph
from agrag_lab.agent import AGENT_TOOLS, openai_tools
from agrag_lab.evidence import Scope
from agrag_lab.evidence.tools import TOOLS as REGISTRY
from agrag_lab.evidence.tools import ToolArguments
from agrag_lab.mcp import EvidenceServer


def test_every_argument_is_a_parameter_of_the_function_with_its_default() -> None:
    """An argument model and the function it feeds cannot drift apart."""
    for spec in REGISTRY:
        parameters = inspect.signature(spec.function).parameters
        for name, field in spec.arguments.model_fields.items():
            if name in ToolArguments.model_fields:  # text_offset: every tool's, taken by ToolSpec.run
                continue
            assert name in parameters, (spec.name, name)
            default = parameters[name].default
            if field.is_required():
                assert default is inspect.Parameter.empty or spec.name == "check_citations", (spec.name, name)
            else:
                assert default == field.default, (spec.name, name, default, field.default)


def test_the_agent_is_offered_the_registry_schemas() -> None:
    offered = {t["function"]["name"]: t["function"] for t in openai_tools()}
    assert list(offered) == list(AGENT_TOOLS)
    for spec in REGISTRY:
        if spec.name in offered:
            assert offered[spec.name]["description"] == spec.description
            schema = spec.arguments.model_json_schema()
            assert offered[spec.name]["parameters"]["properties"] == schema["properties"]


@pytest.mark.anyio
async def test_the_server_lists_the_registry(workshop_graph: Graph) -> None:
    server = EvidenceServer(workshop_graph, Scope(document_ids=frozenset({"ada-lovelace", "note-g"})))
    assert server.tool_names == (*(spec.name for spec in REGISTRY), "open_session")
    assert set(server.tool_names) == TOOLS
    async with Client(server.mcp) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        for spec in REGISTRY:
            served = listed[spec.name]
            assert served.description is not None and served.description.startswith(spec.description)
            properties = dict(served.input_schema["properties"])
            if spec.memory != "none":
                assert properties.pop("session")["anyOf"][0]["type"] == "string"
            assert properties == spec.arguments.model_json_schema()["properties"], spec.name
            assert served.input_schema["additionalProperties"] is False
            assert served.annotations is not None and served.annotations.read_only_hint is spec.hints.read_only
        documents = data(await client.call_tool("list_documents", {}))
    assert [d["id"] for d in documents["documents"]] == ["ada-lovelace", "note-g"]
    for entry in documents["documents"]:
        record = workshop_graph.db.document(entry["id"])
        assert record is not None and entry["version"] == record.current_version
        assert entry["chunks"] == len(workshop_graph.db.chunks_of(entry["id"], record.current_version))
    assert documents["total"] == 2 and documents["truncated"] is False


@pytest.mark.anyio
@pytest.mark.parametrize("bad", [True, False, 2.0, "3"])
async def test_integer_arguments_are_strict(workshop_graph: Graph, bad: object) -> None:
    """Issue 31, finding 9: ``limit: true`` was taken as 1 (and "3" as 3): every int argument is strict."""
    server = EvidenceServer(workshop_graph, Scope(document_ids=frozenset({"ada-lovelace", "note-g"})))
    calls = [
        ("search_evidence", {"query": "Ada", "limit": bad}),
        ("find_entities", {"query": "Ada", "limit": bad}),
        ("explore", {"entity": "Ada Lovelace", "depth": bad}),
        ("explore", {"entity": "Ada Lovelace", "limit": bad}),
        ("search", {"query": "Ada", "limit": bad}),
        ("list_documents", {"limit": bad}),
    ]
    async with Client(server.mcp) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            message = result.content[0].text  # type: ignore[union-attr]
            assert "invalid arguments" in message and "integer" in message, (name, message)
        assert not (await client.call_tool("list_documents", {"limit": 2})).is_error
    for spec in REGISTRY:
        for field_name, field in spec.arguments.model_fields.items():
            if field.annotation in (int, int | None):
                assert any(getattr(m, "strict", False) for m in field.metadata), (spec.name, field_name)


@pytest.mark.anyio
async def test_the_tool_list_made_without_an_index_is_the_servers(workshop_graph: Graph) -> None:
    """``tools/list`` answered while the index opens (agrag_lab.mcp.server.server_tools) is the open server's."""
    from mcp.server.mcpserver import MCPServer

    from agrag_lab.mcp.server import server_tools

    served = await EvidenceServer(workshop_graph, Scope(document_ids=frozenset({"note-g"}))).mcp.list_tools()
    described = await MCPServer("described", tools=server_tools()).list_tools()
    assert [t.model_dump() for t in described] == [t.model_dump() for t in served]
    assert [t.name for t in described] == [*(spec.name for spec in REGISTRY), "open_session"]


@pytest.mark.anyio
async def test_the_tool_list_imports_no_search_stack(workshop_path: Path) -> None:
    """Listing the tools (what ``tools/list`` answers while the index opens) imports no index, search or model code.

    Nor does ``agrag-lab mcp``'s check of the index folder before it (``mcp.cli._tools``): no index build
    code, no networkx. Each tool's function is imported on its first call; the list made in a fresh
    process is the one made here.
    """
    import json
    import subprocess
    import sys

    from mcp.server.mcpserver import MCPServer

    from agrag_lab.mcp.server import server_tools

    heavy = ("scipy", "bm25s", "chromadb", "onnxruntime", "httpx", "agrag_lab.retrieval", "agrag_lab.storage.keyword",
             "agrag_lab.embedding", "agrag_lab.evidence.session", "agrag_lab.evidence.search", "networkx",
             "agrag_lab.index.build", "agrag_lab.kg.model")
    code = (
        "import anyio, argparse, json, sys\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "from agrag_lab.mcp.cli import _tools\n"
        f"args = argparse.Namespace(index={str(workshop_path)!r}, scope_documents=None, scope_where=None)\n"
        "listed = anyio.run(MCPServer('described', tools=_tools(args)).list_tools)\n"
        f"print(json.dumps([[m for m in {heavy!r} if m in sys.modules], [t.model_dump(mode='json') for t in listed]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    loaded, listed = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == []
    here = await MCPServer("described", tools=server_tools()).list_tools()
    assert listed == [t.model_dump(mode="json") for t in here]
    assert [t["name"] for t in listed] == [*(spec.name for spec in REGISTRY), "open_session"]
