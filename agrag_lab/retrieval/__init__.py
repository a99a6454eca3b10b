"""Retrieval: settings, fusion and the search engine."""

# methods over the graph register themselves in retrieval.methods.REGISTRY when imported
from agrag_lab.retrieval import entity_context as entity_context
from agrag_lab.retrieval import level_reports as level_reports
from agrag_lab.retrieval import methods_fact_ppr as methods_fact_ppr
from agrag_lab.retrieval import methods_keyword_graph as methods_keyword_graph
from agrag_lab.retrieval import methods_linear_ppr as methods_linear_ppr
