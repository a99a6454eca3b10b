"""What a notebook is given: an index, questions and recipes, and the examples it picks from the index.

Every notebook opens with one ``parameters`` cell (papermill's tag)::

    INDEX = None          # an index folder; None: the bundled one
    QUESTIONS = None      # None: picked from the index; a list, a dict, one question, or a file
    RECIPES = ["CHUNK", "HYBRID", "GRAPH_EXPAND"]

and reads it through this module, so the same notebook runs on the bundled
workshop index, on an imported GraphRAG (0.3-era, 1.x, 2.x/3.x) or LightRAG
index, in any language. Nothing a notebook shows is hard-coded: the entity,
the report and the passage it uses as examples are picked from the index by
:func:`pick_examples` (the most connected entity, the best-rated top-level
report, the first passage of the first document), and :attr:`Examples.note`
says how, so the notebook can say so. An index given to a notebook is only
ever opened read-only.

Examples
--------
>>> read_questions(["Who is Ada?", "What is Note G?"])
{'q1': 'Who is Ada?', 'q2': 'What is Note G?'}
>>> read_questions("Who is Ada?")
{'q1': 'Who is Ada?'}
>>> [r.name for r in recipe_list(["chunk", "hybrid"])]
['CHUNK', 'HYBRID']
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab import names
from agrag_lab.errors import DatasetError, IndexFormatError
from agrag_lab.kg.graph_store import WHOLE_GRAPH
from agrag_lab.names import is_cjk

if TYPE_CHECKING:
    from agrag_lab.graph import Graph
    from agrag_lab.recipes import Recipe

__all__ = [
    "INDEX_ENV",
    "Examples",
    "QuestionsArg",
    "entity_degrees",
    "first_words",
    "index_folder",
    "is_cjk",
    "open_index",
    "pick_examples",
    "read_questions",
    "recipe_list",
]

#: The index ``agrag-lab lab --index PATH`` gives every notebook whose ``INDEX`` is None.
INDEX_ENV = "AGRAG_INDEX"
#: What ``QUESTIONS`` may be: None (picked), one question, a list, ``{id: question}``, or a file path.
QuestionsArg = str | os.PathLike[str] | Sequence[str] | Mapping[str, str] | None
#: Words of a passage that make the "find this passage" question.
PASSAGE_WORDS = 8
#: Characters of a passage that make that question when its text has no spaces (Chinese, Japanese).
PASSAGE_CHARS = 16


def first_words(text: str, *, words: int = PASSAGE_WORDS, chars: int = PASSAGE_CHARS) -> str:
    """The opening of ``text`` a notebook searches for (:func:`agrag_lab.names.first_words`, without its ``…``).

    Examples
    --------
    >>> first_words("Call me Ishmael. Some years ago - never mind how long", words=4)
    'Call me Ishmael. Some'
    """
    return names.first_words(text, words=words, chars=chars).rstrip("…")


@dataclass(frozen=True)
class Examples:
    """What a notebook shows as its examples, picked from the index (:func:`pick_examples`).

    Attributes
    ----------
    entity : str or None
        The name of the most connected entity (most relations; ``None`` in an index without entities).
    degree : int
        Its number of distinct neighbours.
    report : str or None
        The title of the best-rated top-level community report (``None`` in an index without reports).
    passage : str or None
        The evidence id of the first passage of the first document.
    passage_words : str
        That passage's first words.
    chinese : bool
        Whether the index's passages are mostly Chinese (the picked questions are asked in Chinese).
    questions : dict
        One question per example, by a short id (``entity``, ``report``, ``passage``).
    note : str
        How the examples were picked, in one paragraph a notebook prints.
    """

    entity: str | None
    degree: int
    report: str | None
    passage: str | None
    passage_words: str
    chinese: bool
    questions: Mapping[str, str] = field(default_factory=dict)
    note: str = ""


def entity_degrees(graph: Graph) -> dict[str, int]:
    """Each entity's number of distinct neighbours (relations to itself not counted twice), by entity id."""
    store = graph.graph_store
    if WHOLE_GRAPH in store.capabilities:
        return {key: len(ids) for key, ids in store.whole_graph().graph.neighbour_ids.items()}
    return {e.id: len({edge.other(e.id) for edge in store.neighbours(e.id)}) for e in store.entities()}


def pick_examples(graph: Graph) -> Examples:
    """The examples a notebook uses, picked from ``graph`` (never hard-coded; see the module docstring).

    The most connected entity (ties: the first name in order), the best-rated
    top-level community report (ties: the first title), and the first passage
    of the first document (documents by id). Each becomes a question: in
    Chinese when the passages are.

    Parameters
    ----------
    graph : Graph
        Any index: ours, or an imported GraphRAG or LightRAG one.

    Returns
    -------
    Examples
    """
    store = graph.graph_store
    entities = {e.id: e for e in store.entities()}
    degrees = entity_degrees(graph)
    ranked = sorted(entities.values(), key=lambda e: (-degrees.get(e.id, 0), e.name))
    entity = ranked[0] if ranked else None
    reports = [r for r in (store.report(c.id) for c in store.communities(level=0)) if r is not None] or list(
        store.reports()
    )
    report = min(reports, key=lambda r: (-(r.rating or 0.0), r.title)) if reports else None
    passage_id, words, text = None, "", ""
    for record in graph.db.documents():
        chunks = graph.db.chunks_of(record.id, record.current_version) if record.current_version else []
        if chunks:
            passage_id, text = str(chunks[0].id), chunks[0].text
            words = first_words(text)
            break
    chinese = is_cjk(text or (entity.name if entity else ""))
    questions: dict[str, str] = {}
    if entity is not None:
        questions["entity"] = (f"{entity.name}是谁？与谁有关？" if chinese
                               else f"Who or what is {entity.name}, and what is it connected to?")
    if report is not None:
        questions["report"] = f"{report.title}讲了什么？" if chinese else f"What is {report.title} about?"
    if words:
        questions["passage"] = words
    parts = []
    if entity is not None:
        parts.append(f"the most connected entity, {entity.name} ({degrees.get(entity.id, 0)} neighbours)")
    if report is not None:
        parts.append(f"the best-rated top-level community report, “{report.title}”")
    if passage_id is not None:
        parts.append(f"the first passage of the first document ({passage_id}), searched by its first words")
    note = ("Examples picked from this index (nothing here is hard-coded): " + "; ".join(parts) + "."
            if parts else "This index holds no entity, report or passage to pick an example from.")
    return Examples(
        entity=entity.name if entity else None, degree=degrees.get(entity.id, 0) if entity else 0,
        report=report.title if report else None, passage=passage_id, passage_words=words, chinese=chinese,
        questions=questions, note=note,
    )


def read_questions(
    given: QuestionsArg, examples: Examples | None = None, *, default: QuestionsArg = None
) -> dict[str, str]:
    """The questions a notebook asks, by id.

    Parameters
    ----------
    given
        ``None``: the questions of ``examples`` (picked from the index); a path
        (``str`` or ``PathLike``) of an existing file: one question per line
        (``.txt``), a JSON list or object (``.json``), or ``{"_id", "text"}``
        records (``.jsonl``, as a benchmark's ``queries.jsonl``); any other
        ``str``: one question; a list: questions ``q1``, ``q2``...; a mapping:
        ``{id: question}`` as given.
    examples : Examples, optional
        Where ``None`` takes its questions from.
    default : optional
        What ``None`` means instead (read as ``given`` is): a notebook's own
        questions about its bundled index, passed only when that index is the one open.

    Raises
    ------
    DatasetError
        No questions at all (an empty file or list, or ``None`` without examples that hold any).
    """
    questions: dict[str, str]
    if given is None and default is not None:
        return read_questions(default)
    if given is None:
        questions = dict(examples.questions) if examples is not None else {}
    elif isinstance(given, os.PathLike) or (isinstance(given, str) and _is_file(given)):
        questions = _read_file(Path(given))
    elif isinstance(given, str):
        questions = {"q1": given}
    elif isinstance(given, Mapping):
        questions = {str(k): str(v) for k, v in given.items()}
    else:
        questions = {f"q{i}": str(q) for i, q in enumerate(given, start=1)}
    questions = {k: v.strip() for k, v in questions.items() if v and v.strip()}
    if not questions:
        raise DatasetError(
            f"no questions in QUESTIONS={given!r}: give a question, a list of them, or a file "
            "(one question per line, a JSON list, or queries.jsonl records with _id and text)"
        )
    return questions


def _is_file(text: str) -> bool:
    return "\n" not in text and len(text) < 4096 and Path(text).expanduser().is_file()


def _read_file(path: Path) -> dict[str, str]:
    path = path.expanduser()
    if not path.is_file():
        raise DatasetError(f"question file {path} does not exist: check the path in QUESTIONS")
    if path.suffix.lower() == ".jsonl":
        from agrag_lab.eval.folder import read_queries

        return read_queries(path)[0]
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            data: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path} is not valid JSON ({exc}); give a JSON list or object of questions") from exc
        if isinstance(data, dict):
            return {str(k): str(v) for k, v in data.items()}
        if isinstance(data, list):
            return {f"q{i}": str(q) for i, q in enumerate(data, start=1)}
        raise DatasetError(f"{path} holds a JSON {type(data).__name__}; give a list or an object of questions")
    lines = [line.strip() for line in text.splitlines()]
    return {f"q{i}": line for i, line in enumerate((ln for ln in lines if ln and not ln.startswith("#")), start=1)}


def recipe_list(names: Sequence[Any]) -> list[Recipe]:
    """Recipes by name (built-in or peer, any case), ``.toml`` path, or as given (a :class:`Recipe`)."""
    from agrag_lab.recipes import Recipe, get

    return [name if isinstance(name, Recipe) else get(name) for name in names]


def open_index(index: str | os.PathLike[str] | None, default: Callable[[], Graph]) -> Graph:
    """The index a notebook was given, opened read-only, or ``default()`` (the bundled one) when ``index`` is None.

    ``index`` None means the index ``agrag-lab lab --index PATH`` was started on
    (``$AGRAG_INDEX``), else ``default()``.

    Raises
    ------
    IndexFormatError
        ``index`` is not an index folder; for a GraphRAG output or a LightRAG
        working directory the message gives the import command that makes one.
    """
    if index is None or str(index) == "":
        index = os.environ.get(INDEX_ENV) or None
    if index is None:
        return default()
    from agrag_lab.graph import Graph

    return Graph.open(index_folder(index), read_only=True)


def index_folder(index: str | os.PathLike[str]) -> Path:
    """``index`` as a path, checked to hold an index (nothing is opened or written).

    Raises
    ------
    IndexFormatError
        ``index`` is not an index folder; for a GraphRAG output or a LightRAG
        working directory the message gives the import command that makes one.
    """
    path = Path(index).expanduser()
    if not (path / "documents.sqlite").is_file():
        hint = _import_hint(path)
        raise IndexFormatError(
            f"{path} is not an agrag_lab index (no documents.sqlite)"
            + (f"; it looks like {hint[0]}: import it first, `{hint[1]}`, then pass the new folder as INDEX"
               if hint else "; pass the folder of an index (made by `agrag-lab ingest` or `agrag-lab import`)")
        )
    return path


def _import_hint(path: Path) -> tuple[str, str] | None:
    if not path.is_dir():
        return None
    target = f"{path.name or 'imported'}-index"
    if any(path.glob("*.parquet")) or (path / "output").is_dir():
        return "a GraphRAG output", f"agrag-lab import graphrag {path} --index {target}"
    if (path / "kv_store_text_chunks.json").is_file() or (path / "graph_chunk_entity_relation.graphml").is_file():
        return "a LightRAG working directory", f"agrag-lab import lightrag {path} --index {target}"
    return None
