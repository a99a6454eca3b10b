"""Building a graph from text: extraction, resolution, the build, and community reports.

- :mod:`~agrag_lab.kg.extract.extraction` — the :class:`Extractor` protocol, :class:`RuleExtractor`.
- :mod:`~agrag_lab.kg.extract.rules` and :mod:`~agrag_lab.kg.extract.lexicon` — the rule extractor's
  patterns and word lists.
- :mod:`~agrag_lab.kg.extract.llm_extraction`, :mod:`~agrag_lab.kg.extract.llm_reports`,
  :mod:`~agrag_lab.kg.extract.llm_graph` — extraction and reports by an LLM.
- :mod:`~agrag_lab.kg.extract.spacy_ner` and :mod:`~agrag_lab.kg.extract.tri_graph` — LinearRAG's
  relation-free tri-graph and its spaCy extractor.
- :mod:`~agrag_lab.kg.extract.confirmation` — names the corpus must confirm.
- :mod:`~agrag_lab.kg.extract.resolution` — one entity per thing named, across documents.
- :mod:`~agrag_lab.kg.extract.build` — :func:`build_knowledge_graph` → :class:`~agrag_lab.kg.model.KnowledgeGraph`.
- :mod:`~agrag_lab.kg.extract.pipeline` — :func:`extract_chunks`, :func:`build_graph`.
- :mod:`~agrag_lab.kg.extract.reports` — :class:`ExtractiveReporter`, :func:`build_reports`.
- :mod:`~agrag_lab.kg.extract.quality` — an extractor's precision and recall against a reference.

It imports the graph model and its algorithms, never a graph store
(:func:`~agrag_lab.graph_stores.build.build_store` puts a build into one).
"""
