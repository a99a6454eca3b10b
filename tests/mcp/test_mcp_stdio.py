"""The real SDK client against ``agrag-lab mcp`` over stdio (a subprocess)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_scenarios import Probe, check_bad_arguments, check_every_tool, check_scope, check_tool_list
from mcp_support import STARTUP_SECONDS, data, server_args, server_env, text

pytestmark = pytest.mark.anyio


def _params(index: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=server_args(index), env=server_env())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_serves_every_tool_within_the_scope(workshop_path: Path, probe: Probe, mode: str) -> None:
    """Protocol 2026-07-28 (auto) and 2025-11-25 (legacy): every tool, the scope, bad arguments.

    Over stdio the one client has a default evidence session: no handle needed.
    """
    with anyio.fail_after(STARTUP_SECONDS + 300):
        async with Client(_params(workshop_path), mode=mode) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            await check_tool_list(client)
            handle = await check_every_tool(client, probe, session=None)
            await check_scope(client, probe, session=None)
            await check_bad_arguments(client, session=None)
            # the connection's default session remembered the fetches of every call above
            first = data(await client.call_tool("search_evidence", {"query": "Note G Bernoulli numbers", "limit": 1}))
            cited = first["hits"][0]["id"]
            again = data(await client.call_tool("check_citations", {"ids": [cited]}))
            assert again["all_valid"] and again["session"] == handle
            # an explicit handle is a separate memory, even on stdio
            fresh = data(await client.call_tool("open_session", {}))["session"]
            other = data(await client.call_tool("check_citations", {"ids": [cited], "session": fresh}))
            assert other["checks"][0]["reason"] == "not_fetched"


async def test_a_missing_index_is_told_to_the_client(tmp_path: Path) -> None:
    """The server answers initialize before it opens the index; what went wrong is every answer after."""
    params = StdioServerParameters(command=sys.executable, args=server_args(tmp_path / "no-index"), env=server_env())
    with anyio.fail_after(STARTUP_SECONDS):
        async with Client(params, mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"  # initialize was answered
            with pytest.raises(MCPError, match=r"could not open the index: .*no-index holds no index yet"):
                await client.list_tools()
            failed = await client.call_tool("list_documents", {})
            assert failed.is_error and "holds no index yet" in text(failed) and "ingest documents first" in text(failed)
