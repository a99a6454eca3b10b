"""What a scope shows of the entities: in-scope names, aliases and relation sentences, as a keyword index.

Entity records hold text from every document (names, aliases, descriptions,
relation sentences), so a mask over the shared entity keyword index cannot
hide a word that only an out-of-scope document contributed (issue 31). A
search restricted to some documents ranks entities by keyword on the index
:func:`build_entity_view` makes from what the scope shows of them, and
nothing else: the evidence session's ``find_entities`` and the engine's
``entity`` method alike (:func:`scoped_entity_keyword`).

Examples
--------
>>> display_name(Entity("ent-x", "Charles Babbage", "Person", forms=(("a", "Babbage"),)))
'Babbage'
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from agrag_lab.kg.build import Entity
from agrag_lab.kg.facets import FACET_MARK
from agrag_lab.kg.store import GraphScope, NetworkXGraphStore
from agrag_lab.storage.keyword import KeywordIndex

__all__ = [
    "RELATIONS_PER_ENTITY",
    "EntityView",
    "build_entity_view",
    "display_name",
    "scoped_entity_keyword",
    "scoped_relation_sentences",
]

#: Relation sentences indexed per entity in a restricted session's keyword index.
RELATIONS_PER_ENTITY = 8
#: Scoped entity keyword indexes kept per graph store (most recently used).
VIEWS_PER_STORE = 16


@dataclass(frozen=True)
class EntityView:
    """What a restricted session may search of the entities.

    ``visible`` are the entity ids the graph scope shows; ``keyword`` indexes
    their in-scope names and aliases (id ``<entity>``) and in-scope typed
    relation sentences (id ``<entity>#r<n>``).
    """

    visible: frozenset[str]
    keyword: KeywordIndex


def scoped_relation_sentences(
    store: NetworkXGraphStore, entity: Entity, scope: GraphScope, limit: int = RELATIONS_PER_ENTITY
) -> list[str]:
    """``"Ada Lovelace worked with Charles Babbage."`` for the entity's typed relations visible in ``scope``.

    Names are the ones shown in the scope (:func:`display_name`); strongest
    relations first (more supporting passages, then by key).
    """
    out: list[str] = []
    edges = sorted(store.neighbours(entity.id, scope=scope), key=lambda e: (-e.weight, e.key))
    for edge in edges:
        if edge.type == "RELATED_TO":
            continue
        source, target = store.entity(edge.source, scope), store.entity(edge.target, scope)
        if source is None or target is None:
            continue
        verb = edge.type.lower().replace("_", " ")
        out.append(f"{display_name(source)} {verb} {display_name(target)}.")
        if len(out) == limit:
            break
    return out


def build_entity_view(store: NetworkXGraphStore, scope: GraphScope) -> EntityView:
    """The visible entities of ``scope`` and a keyword index of what the scope shows of them."""
    ids: list[str] = []
    texts: list[str] = []
    visible: set[str] = set()
    for entity in store.entities(scope):
        visible.add(entity.id)
        ids.append(entity.id)
        texts.append(" ".join([display_name(entity), *entity.aliases]))
        for n, sentence in enumerate(scoped_relation_sentences(store, entity, scope)):
            ids.append(f"{entity.id}{FACET_MARK}{n}")
            texts.append(sentence)
    return EntityView(frozenset(visible), KeywordIndex.build(ids, texts))


def display_name(entity: Entity) -> str:
    """The name to show: the canonical name if it was found in scope, else a form found in scope.

    ``entity`` must already be trimmed to the scope (its ``forms`` are).

    Examples
    --------
    >>> display_name(Entity("ent-x", "Charles Babbage", "Person", forms=(("a", "Babbage"),)))
    'Babbage'
    >>> display_name(Entity("ent-x", "Charles Babbage", "Person"))
    'Charles Babbage'
    """
    forms = [f for _, f in entity.forms]
    if not forms or entity.name in forms:
        return entity.name
    return sorted(forms, key=lambda f: (-forms.count(f), -len(f), f))[0]



_ScopeKey = tuple[frozenset[str] | None, frozenset[str] | None, frozenset[str] | None]
_views: weakref.WeakKeyDictionary[Any, OrderedDict[_ScopeKey, EntityView]] = weakref.WeakKeyDictionary()
_views_lock = threading.Lock()


def _frozen(values: Any) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


def scoped_entity_keyword(store: Any, scope: GraphScope) -> KeywordIndex:
    """The keyword index of what ``scope`` shows of the entities (built once per store and scope, kept for reuse).

    ``store`` is any graph store with ``entities``, ``entity`` and ``neighbours`` taking a scope.
    """
    key: _ScopeKey = (_frozen(scope.document_ids), _frozen(scope.labels), _frozen(scope.relation_types))
    with _views_lock:
        kept = _views.setdefault(store, OrderedDict())
        view = kept.get(key)
        if view is not None:
            kept.move_to_end(key)
            return view.keyword
    view = build_entity_view(store, scope)
    with _views_lock:
        kept[key] = view
        while len(kept) > VIEWS_PER_STORE:
            kept.popitem(last=False)
    return view.keyword
