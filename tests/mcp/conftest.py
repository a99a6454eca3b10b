"""Fixtures of the MCP tests: ids to probe the scope with; evidence sessions kept in a folder of the run."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from mcp_scenarios import Probe
from mcp_support import OUTSIDE

from agrag_lab import Graph
from agrag_lab.evidence import Scope


@pytest.fixture(scope="session", autouse=True)
def session_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Servers started by these tests keep evidence sessions here (inherited by subprocesses), not in the user's state dir."""
    folder = str(tmp_path_factory.mktemp("agrag-state"))
    before = os.environ.get("AGRAG_LAB_STATE_DIR")
    os.environ["AGRAG_LAB_STATE_DIR"] = folder
    yield folder
    if before is None:
        os.environ.pop("AGRAG_LAB_STATE_DIR", None)
    else:
        os.environ["AGRAG_LAB_STATE_DIR"] = before


@pytest.fixture(scope="session")
def probe(workshop_graph: Graph) -> Probe:
    """Real and made-up ids, read from the index in-process."""
    outside_session = workshop_graph.evidence(Scope(document_ids=frozenset({OUTSIDE})))
    outside = outside_session.discover("Byron", mode="keyword", limit=1).hits[0].id
    version = outside.split("@")[1].split("#")[0]
    db = workshop_graph.db
    old = [v for v in db.versions("analytical-engine") if v.superseded]
    assert old, "the workshop index must hold the revised analytical-engine"
    ada = db.versions("ada-lovelace")[-1].version
    return Probe(
        outside=outside,
        missing=f"no-such-document@{version}#c0",
        superseded=f"analytical-engine@{old[0].version}#c0",
        inside_unknown=f"ada-lovelace@{ada}#c999",
    )


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"

