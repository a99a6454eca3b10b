"""The bundled GraphRAG output's location and its tables read with polars (shared by the import tests)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

CAROL = Path(__file__).resolve().parents[2] / "datasets" / "msgraphrag_christmas_carol"
#: File of each table per format folder.
FILES = {
    "v3": {t: f"{t}.parquet" for t in ("documents", "text_units", "entities", "relationships", "communities",
                                       "community_reports", "covariates")},
    "v1": {t: f"create_final_{t}.parquet" for t in ("documents", "text_units", "entities", "relationships",
                                                    "communities", "community_reports", "nodes")},
}


def table(version: str, name: str) -> pl.DataFrame:
    """A table of the bundled output, read with polars."""
    return pl.read_parquet(CAROL / version / FILES[version][name])
