"""Retrieval: settings, fusion and the search engine."""
