"""Retrieval: settings, fusion, the methods (:mod:`agrag_lab.retrieval.methods`, one explicit registry) and the
search engine."""
