"""What a retrieval method requires of the search store beyond its protocol, checked once per run.

A method declares ``requires`` (a frozenset of :data:`~agrag_lab.kg.graph_store.Capability`);
a search store declares ``capabilities``. :func:`check_capabilities` compares the two before
any method runs and raises :class:`~agrag_lab.errors.MissingCapabilityError` naming the
missing capability and how to get a store that has it. Nothing probes a store for attributes.

Today there is one capability, :data:`~agrag_lab.kg.graph_store.WHOLE_GRAPH`: ``fact_ppr``
(HippoRAG 2) builds its PageRank matrix from every entity, relation and passage, and the
``keyword_*`` methods (LightRAG) read every relation record, so both need the graph held in
process. A graph served by FalkorDB stays in the server; the index folder keeps its own copy,
so opening the index without the server runs the same method on the same graph.

Examples
--------
>>> check_capabilities({"fact_ppr": frozenset({"whole_graph"})}, frozenset(), "ServedGraphStore")
Traceback (most recent call last):
...
agrag_lab.errors.MissingCapabilityError: the fact_ppr method requires the 'whole_graph' capability, which ServedGraphStore has not: open the index without the graph server (Graph.open(path) without graph_store=, or agrag-lab without --falkordb); the index folder holds the same graph
>>> check_capabilities({"chunk": frozenset()}, frozenset(), "ServedGraphStore")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from agrag_lab.errors import MissingCapabilityError
from agrag_lab.kg.graph_store import WHOLE_GRAPH, Capability

__all__ = ["FIXES", "IN_PROCESS_FIX", "Requiring", "check_capabilities", "missing", "requirements"]

#: How to run a whole-graph method on an index whose graph is served.
IN_PROCESS_FIX = ("open the index without the graph server (Graph.open(path) without graph_store=, or agrag-lab "
                  "without --falkordb); the index folder holds the same graph")
#: How to get a store with each capability.
FIXES: Mapping[Capability, str] = {WHOLE_GRAPH: IN_PROCESS_FIX}


@runtime_checkable
class Requiring(Protocol):
    """A retrieval method that requires capabilities of the store beyond the methods' protocol.

    Attributes
    ----------
    requires : frozenset of Capability
        What it needs (e.g. ``frozenset({WHOLE_GRAPH})``); a method that does not declare it needs none.
    """

    requires: frozenset[Capability]


def requirements(method: object) -> frozenset[Capability]:
    """What ``method`` declares it requires (:class:`Requiring`), else nothing.

    Examples
    --------
    >>> class Walks:
    ...     requires = frozenset({WHOLE_GRAPH})
    >>> sorted(requirements(Walks())), sorted(requirements(object()))
    (['whole_graph'], [])
    """
    return method.requires if isinstance(method, Requiring) else frozenset()


def missing(wanted_by: str, capability: Capability, store: str) -> MissingCapabilityError:
    """The error for ``wanted_by`` (e.g. ``"the fact_ppr method"``) finding ``store`` without ``capability``."""
    return MissingCapabilityError(capability, store, wanted_by, FIXES[capability])


def check_capabilities(
    requires: Mapping[str, frozenset[Capability]], capabilities: frozenset[Capability], store: str
) -> None:
    """Raise for the first method (in ``requires`` order) that needs a capability the store lacks.

    Parameters
    ----------
    requires : mapping of str to frozenset of Capability
        Method name -> what it requires.
    capabilities : frozenset of Capability
        What the store has.
    store : str
        The store's name, for the message.

    Raises
    ------
    MissingCapabilityError
        A method requires a capability the store has not.
    """
    for method, needs in requires.items():
        for capability in sorted(needs - capabilities):
            raise missing(f"the {method} method", capability, store)
