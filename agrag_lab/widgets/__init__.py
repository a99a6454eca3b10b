"""The workbench's interactive widgets: thin synced state over pure-Python models.

Each widget reads a :class:`~agrag_lab.retrieval.run.SearchRun` (or its
trace, or an evidence session) through a model that can be used and tested
without a browser; the widget only binds controls to the model's state.

==========================  ===========================  =====================================================
widget                      model                        shows
==========================  ===========================  =====================================================
:class:`RecipeEditor`       :class:`RecipeEditorModel`   every recipe field, validated as you type; TOML files
:class:`FusionInspector`    :class:`FusionModel`         each step of one run; sliders re-fuse without queries
:class:`RecipeComparison`   :class:`ComparisonModel`     recipes side by side: rank shift, overlap, metrics
:class:`CitationChecker`    :class:`CitationModel`       each citation of an answer valid or not, and why
:class:`GraphWalkView`      :class:`WalkGraph`           the walked subgraph: seeds, hops, relations, passages
:class:`GraphExplorer`      :class:`ExplorerView`        the whole graph, a community, a document, a neighbourhood
:class:`GraphCurator`       :mod:`.curator_model`        duplicate candidates side by side; merge, split, rename, undo
==========================  ===========================  =====================================================

Tables are :class:`TableView` (anywidget). Charts come from
:mod:`agrag_lab.charts` and are shown as plotly outputs that JupyterLab's
plotly renderer draws (plotly.js loaded once), redrawn when they change; the
walk view's node clicks come through a small anywidget. None is a plotly
``FigureWidget``: its 5 MB module can miss anywidget's 2 s start-up window on
a busy machine, and the chart then stays empty.

Examples
--------
::

    from agrag_lab import recipes
    from agrag_lab.lab import open_workshop
    from agrag_lab.widgets import FusionInspector

    graph = open_workshop()
    run = graph.engine().run("Who worked with Babbage?", recipes.GRAPH_EXPAND)
    FusionInspector(run, session=graph.evidence())
"""

from agrag_lab.extras import require

require("lab", "ipywidgets", "anywidget", "plotly", "ranx", feature="the widgets")

from agrag_lab.widgets.citations import CitationChecker, CitationModel
from agrag_lab.widgets.comparison import ComparisonModel, RecipeComparison
from agrag_lab.widgets.fusion_inspector import FusionInspector, FusionModel, FusionView
from agrag_lab.widgets.graph_curator import GraphCurator
from agrag_lab.widgets.graph_explorer import ExplorerView, GraphExplorer, explorer_view, node_details
from agrag_lab.widgets.graph_walk import GraphWalkView, WalkGraph, traverse_graph, walk_figure, walk_graph
from agrag_lab.widgets.measures import jaccard, rank_shift, rbo
from agrag_lab.widgets.recipe_editor import RecipeEditor, RecipeEditorModel
from agrag_lab.widgets.table import TableView, column, table_frame

__all__ = [
    "CitationChecker",
    "CitationModel",
    "ComparisonModel",
    "ExplorerView",
    "FusionInspector",
    "FusionModel",
    "FusionView",
    "GraphCurator",
    "GraphExplorer",
    "GraphWalkView",
    "RecipeComparison",
    "RecipeEditor",
    "RecipeEditorModel",
    "TableView",
    "WalkGraph",
    "column",
    "explorer_view",
    "jaccard",
    "node_details",
    "rank_shift",
    "rbo",
    "table_frame",
    "traverse_graph",
    "walk_figure",
    "walk_graph",
]
