"""The retrieval methods, one module each, and the registry the engine runs them from.

As ranx's ``fusion/`` keeps one algorithm per module, each method (or family of
methods) has its module here, and this package names them all in one explicit
:data:`REGISTRY`: importing a method module registers nothing.

===========================  ===========================================  =========================================
registry names               module                                       what it searches
===========================  ===========================================  =========================================
``entity``, ``chunk``,       :mod:`~agrag_lab.retrieval.methods.hybrid`   dense + bm25s over one collection
``community``, ``passage``,
``keyword``
``entity_passages``,         :mod:`~.entity_context`                      GraphRAG local: the passages and reports
``entity_reports``                                                        of the entities nearest the query
``level_reports``            :mod:`~.level_reports`                       GraphRAG global: the reports down to a level
``fact_ppr``                 :mod:`~.fact_ppr`                            HippoRAG 2: PageRank from the nearest facts
``keyword_entities``, ...    :mod:`~.keyword_graph`                       LightRAG: the graph from the query's keywords
``linear_ppr``               :mod:`~.linear_ppr`                          LinearRAG: activation, then PageRank
===========================  ===========================================  =========================================

A method answers a :class:`~agrag_lab.retrieval.methods.protocol.MethodRequest` with a
:class:`~agrag_lab.retrieval.methods.protocol.MethodResult`
(:mod:`agrag_lab.retrieval.methods.protocol`). Adding one is a module and an entry here.

Examples
--------
>>> sorted(REGISTRY)[:5]
['chunk', 'community', 'entity', 'entity_passages', 'entity_reports']
>>> REGISTRY["fact_ppr"].requires
frozenset({'whole_graph'})
"""

from __future__ import annotations

from agrag_lab.retrieval.methods.dense import FACETS_PER_ITEM as FACETS_PER_ITEM
from agrag_lab.retrieval.methods.dense import dense_search as dense_search
from agrag_lab.retrieval.methods.dense import entity_dense_search as entity_dense_search
from agrag_lab.retrieval.methods.entity_context import EntityPassages, EntityReports
from agrag_lab.retrieval.methods.fact_ppr import FactPPR
from agrag_lab.retrieval.methods.hybrid import HybridMethod
from agrag_lab.retrieval.methods.keyword_graph import KeywordGraph
from agrag_lab.retrieval.methods.level_reports import LevelReports
from agrag_lab.retrieval.methods.linear_ppr import LinearPPR
from agrag_lab.retrieval.methods.protocol import MethodRequest as MethodRequest
from agrag_lab.retrieval.methods.protocol import MethodResult as MethodResult
from agrag_lab.retrieval.methods.protocol import QueryVector as QueryVector
from agrag_lab.retrieval.methods.protocol import RetrievalMethod
from agrag_lab.retrieval.methods.protocol import SearchableGraphStore as SearchableGraphStore
from agrag_lab.retrieval.methods.protocol import embed_query as embed_query
from agrag_lab.scope_compiler import compile_filters as compile_filters  # its home; kept importable here

__all__ = [
    "FACETS_PER_ITEM", "REGISTRY", "EntityPassages", "EntityReports", "FactPPR", "HybridMethod", "KeywordGraph",
    "LevelReports", "LinearPPR", "MethodRequest", "MethodResult", "QueryVector", "RetrievalMethod", "SearchableGraphStore",
    "compile_filters", "dense_search", "embed_query", "entity_dense_search",
]

#: The retriever registry: method name -> method. ``passage`` is the dense leg of ``chunk`` alone,
#: ``keyword`` its keyword (bm25s) leg alone, so a recipe can weigh the two legs apart.
REGISTRY: dict[str, RetrievalMethod] = {
    "entity": HybridMethod("entity", "entities"),
    "chunk": HybridMethod("chunk", "chunks"),
    "community": HybridMethod("community", "communities"),
    "passage": HybridMethod("passage", "chunks", keyword=False),
    "keyword": HybridMethod("keyword", "chunks", dense=False),
    # Microsoft GraphRAG's local and global search
    "entity_passages": EntityPassages(),
    "entity_reports": EntityReports(),
    "level_reports": LevelReports(),
    # HippoRAG 2
    "fact_ppr": FactPPR(),
    # LightRAG's local, global, hybrid and mix modes
    "keyword_entities": KeywordGraph("keyword_entities", entities=True, relations=False),
    "keyword_relations": KeywordGraph("keyword_relations", entities=False, relations=True),
    "keyword_graph": KeywordGraph("keyword_graph", entities=True, relations=True),
    "keyword_graph_passages": KeywordGraph("keyword_graph_passages", entities=True, relations=True, passages=True),
    # LinearRAG
    "linear_ppr": LinearPPR(),
}
