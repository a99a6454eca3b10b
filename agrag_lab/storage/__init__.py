"""Storage backends: SQLite for documents, Chroma for vectors, bm25s for keywords."""
