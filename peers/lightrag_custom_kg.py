"""Write a LightRAG 1.5.7 working directory with its custom-KG API (runs in the peers venv).

``python peers/lightrag_custom_kg.py --url http://127.0.0.1:PORT/v1 --out WORKDIR``

A user who already has a graph hands it to LightRAG with ``insert_custom_kg``: chunks
with the user's own ``source_id`` aliases (LightRAG ids them ``chunk-<md5 of the
content>`` and records the alias as the chunk's ``source_id`` and ``full_doc_id``;
no ``kv_store_full_docs.json`` is written), entities and relationships naming those
aliases (LightRAG maps them to the chunk ids). This script inserts such a graph over
paragraphs of ``peers/corpus`` (English and Chinese), as a user's own code would,
including what real custom graphs hold: an entity whose alias names no chunk (LightRAG
stores ``UNKNOWN``), a relationship whose end is no declared entity (LightRAG adds the
node with description ``UNKNOWN``), and a second call adding to the first. Embeddings
come from the scripted server (``--url``, our bundled model); no LLM call is made.
``peers/run.py`` keeps the directory (less ``vdb_*.json`` and the LLM cache) as
``tests/fixtures/peers/lightrag_custom_kg/``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from lightrag import LightRAG
from lightrag.llm.openai import openai_embed
from lightrag.utils import EmbeddingFunc

CORPUS = Path(__file__).with_name("corpus")


def paragraphs(name: str, count: int) -> list[str]:
    """The first ``count`` paragraphs of a corpus text."""
    text = (CORPUS / name).read_text(encoding="utf-8")
    return [p.strip() for p in text.split("\n\n") if p.strip()][:count]


def first_kg() -> dict[str, Any]:
    """Chunks of Pride and Prejudice and 三国演义 with their entities and relationships."""
    pp = paragraphs("pride_and_prejudice.txt", 4)
    sg = paragraphs("sanguo_yanyi.txt", 4)
    chunks = [
        {"content": text, "source_id": f"pp-{n}", "file_path": "pride_and_prejudice.txt", "chunk_order_index": n}
        for n, text in enumerate(pp)
    ] + [
        {"content": text, "source_id": f"sg-{n}", "file_path": "sanguo_yanyi.txt", "chunk_order_index": n}
        for n, text in enumerate(sg)
    ]
    entities = [
        {"entity_name": "Mr. Bennet", "entity_type": "person", "source_id": "pp-2",
         "description": "A gentleman of the neighbourhood whose wife tells him Netherfield Park is let."},
        {"entity_name": "Mrs. Bennet", "entity_type": "person", "source_id": "pp-2",
         "description": "Mr. Bennet's wife, eager to hear who has taken Netherfield Park."},
        {"entity_name": "Netherfield Park", "entity_type": "location", "source_id": "pp-2",
         "description": "An estate in the neighbourhood, let at last to a young man of large fortune."},
        {"entity_name": "Bingley", "entity_type": "person", "source_id": "pp-3",
         "description": "A single young man of large fortune from the north of England who takes Netherfield."},
        {"entity_name": "Mrs. Long", "entity_type": "person", "source_id": "pp-2",
         "description": "A neighbour who brought Mrs. Bennet the news about Netherfield."},
        {"entity_name": "刘备", "entity_type": "person", "source_id": "sg-2",
         "description": "姓刘名备，字玄德，中山靖王刘胜之后，见榜文而长叹。"},
        {"entity_name": "张飞", "entity_type": "person", "source_id": "sg-2",
         "description": "姓张名飞，字翼德，世居涿郡，颇有庄田。"},
        {"entity_name": "黄巾军", "entity_type": "organization", "source_id": "sg-1",
         "description": "张角兄弟三人在巨鹿起事，头裹黄巾，号为黄巾军。"},
        {"entity_name": "Longbourn", "entity_type": "location", "source_id": "pp-99",
         "description": "The Bennets' estate; its alias names no chunk, so LightRAG stores UNKNOWN as its source."},
    ]
    relationships = [
        {"src_id": "Mrs. Bennet", "tgt_id": "Mr. Bennet", "keywords": "marriage, news",
         "description": "Mrs. Bennet tells her husband that Netherfield Park is let.", "source_id": "pp-2",
         "weight": 2.0},
        {"src_id": "Bingley", "tgt_id": "Netherfield Park", "keywords": "tenant, estate",
         "description": "Bingley takes Netherfield Park and comes down on Monday to see it.", "source_id": "pp-3",
         "weight": 1.0},
        {"src_id": "Mrs. Long", "tgt_id": "Mrs. Bennet", "keywords": "gossip",
         "description": "Mrs. Long brings Mrs. Bennet the news of Netherfield.", "source_id": "pp-2",
         "weight": 1.0},
        {"src_id": "刘备", "tgt_id": "张飞", "keywords": "结识, 义兵",
         "description": "张飞见刘备长叹，厉声相问，二人同入村店。", "source_id": "sg-2", "weight": 1.0},
        {"src_id": "刘备", "tgt_id": "刘焉", "keywords": "榜文, 招募",
         "description": "幽州太守刘焉出榜招募义兵，刘备见了榜文。", "source_id": "sg-1", "weight": 1.0},
    ]
    return {"chunks": chunks, "entities": entities, "relationships": relationships}


def second_kg() -> dict[str, Any]:
    """A later call adding Moby-Dick chunks and an entity, with a document id of its own."""
    md = paragraphs("moby_dick.txt", 2)
    return {
        "chunks": [
            {"content": text, "source_id": f"md-{n}", "file_path": "moby_dick.txt", "chunk_order_index": n}
            for n, text in enumerate(md)
        ],
        "entities": [
            {"entity_name": "Ishmael", "entity_type": "person", "source_id": "md-0",
             "description": "The narrator, who goes to sea whenever he grows grim about the mouth."},
        ],
        "relationships": [],
    }


async def build(url: str, out: Path, model: str = "all-MiniLM-L6-v2", dimension: int = 384) -> None:
    async def no_llm(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("insert_custom_kg makes no LLM call")

    embed = EmbeddingFunc(
        embedding_dim=dimension,
        func=partial(openai_embed.func, model=model, base_url=url, api_key="scripted"),
        model_name=model,
    )
    rag = LightRAG(
        working_dir=str(out),
        llm_model_func=no_llm,
        embedding_func=embed,
        enable_llm_cache=False,
        default_embedding_timeout=600,
    )
    await rag.initialize_storages()
    try:
        await rag.ainsert_custom_kg(first_kg())
        await rag.ainsert_custom_kg(second_kg(), full_doc_id="moby-dick-custom")
    finally:
        await rag.finalize_storages()


def main() -> None:
    from lightrag_index import write_working_dir  # beside this script (run by path in the peers venv)

    write_working_dir(build, __doc__, "lightrag custom KG")


if __name__ == "__main__":
    main()
