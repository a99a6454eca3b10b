"""Evidence sessions outlive a server process: two registries over one store file stand for two processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.errors import UnknownSessionError
from agrag_lab.evidence import Scope
from agrag_lab.mcp.session_store import SessionStore, binding, default_path
from agrag_lab.mcp.sessions import SessionRegistry


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _process(graph: Graph, file: Path, clock: Clock, scope: Scope | None = None, **bounds: int) -> SessionRegistry:
    """One server process: its own registry and sessions, the shared store file."""
    readable = None if scope is None else sorted(scope.document_ids or ())
    store = SessionStore(file, binding(graph.path, readable))
    return SessionRegistry(lambda: graph.evidence(scope), clock=clock, idle_timeout=60.0, store=store, **bounds)


def test_a_handle_is_resumed_by_the_next_process_with_what_it_fetched(workshop_graph: Graph, tmp_path: Path) -> None:
    file, clock = tmp_path / "sessions.sqlite", Clock()
    first = _process(workshop_graph, file, clock)
    handle, session = first.open("stdio")
    hit = session.discover("Note G Bernoulli", mode="keyword", limit=1).hits[0].id
    session.fetch([hit])
    first.save(handle, session)
    second = _process(workshop_graph, file, clock)  # a new process: nothing in memory
    resumed = second.get(handle)
    assert resumed is not session and resumed.fetched == (hit,)
    assert resumed.check_citations(f"Note G computes Bernoulli numbers [{hit}].").all_valid
    # an unknown handle is still refused
    with pytest.raises(UnknownSessionError, match="unknown or expired"):
        second.get("es-never-minted")


def test_a_handle_is_bound_to_its_index_and_scope(workshop_graph: Graph, tmp_path: Path) -> None:
    file, clock = tmp_path / "sessions.sqlite", Clock()
    handle, _ = _process(workshop_graph, file, clock).open("stdio")
    narrower = _process(workshop_graph, file, clock, Scope(document_ids=frozenset({"note-g"})))
    with pytest.raises(UnknownSessionError):
        narrower.get(handle)
    assert _process(workshop_graph, file, clock).get(handle) is not None


def test_the_bounds_hold_across_processes(workshop_graph: Graph, tmp_path: Path) -> None:
    file, clock = tmp_path / "sessions.sqlite", Clock()
    old, _ = _process(workshop_graph, file, clock).open("stdio")
    clock.now += 61  # idle past the timeout
    with pytest.raises(UnknownSessionError, match="unused for more than 60 s"):
        _process(workshop_graph, file, clock).get(old)
    handles = [_process(workshop_graph, file, clock, per_client=2).open("stdio")[0] for _ in range(3)]
    later = _process(workshop_graph, file, clock, per_client=2)
    with pytest.raises(UnknownSessionError, match="more than 2 sessions"):
        later.get(handles[0])
    assert all(later.get(h) is not None for h in handles[1:])


def test_the_store_lives_in_the_state_dir_never_in_the_index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGRAG_LAB_STATE_DIR", str(tmp_path / "state"))
    assert default_path() == tmp_path / "state" / "sessions.sqlite"
    monkeypatch.delenv("AGRAG_LAB_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "agrag-lab" / "sessions.sqlite"
