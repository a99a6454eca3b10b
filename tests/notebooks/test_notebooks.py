"""Every notebook runs top to bottom, headless, in under two minutes; notebooks are stored without outputs."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.names import is_cjk
from benchmarks.notebook_client import ShortPollClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
#: GraphRAG's own outputs of the Christmas Carol, one folder per layout (datasets/msgraphrag_christmas_carol/SOURCE.md).
CAROL = REPO / "datasets" / "msgraphrag_christmas_carol"
NAMES = [
    "01_quickstart", "02_rrf_by_hand", "03_compare_recipes", "04_why_did_it_rank",
    "05_citations", "06_graph_walks", "07_evaluate", "08_inspect_a_graphrag_index",
    "09_graphrag_methods_side_by_side",
]
#: Each notebook's run time is written here (a figure to read, never asserted: speed is for the benchmarks).
TIMES = REPO / "test-artifacts" / "notebook-times.json"


@pytest.fixture(scope="session")
def kernel_name() -> str:
    """The venv's own Python kernel (installed into the venv if it is missing)."""
    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        from ipykernel.kernelspec import install

        install(prefix=os.environ.get("VIRTUAL_ENV") or __import__("sys").prefix)
    return "python3"


def test_the_notebooks_exist_and_are_stored_without_outputs() -> None:
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == NAMES
    for name in NAMES:
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["kernelspec"]["name"] == "python3"
        # read as stored: nbformat.read adds missing ids in memory (with a warning), so it cannot see them missing
        stored = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
        missing = [i for i, cell in enumerate(stored["cells"]) if "id" not in cell]
        assert not missing, f"{name}: cells {missing} have no id (nbformat 4.5 requires one; nbformat.validator.normalize)"
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name}: strip the outputs"
        assert "widgets" not in nb.metadata, f"{name}: strip the widget state"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_headless(name: str, notebook_env: dict[str, str], kernel_name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    client = ShortPollClient(
        nb, timeout=600, kernel_name=kernel_name, resources={"metadata": {"path": str(NOTEBOOKS)}},
        allow_errors=False, record_timing=True,
    )
    started = time.perf_counter()
    client.execute(env=notebook_env)
    seconds = time.perf_counter() - started
    _record(name, seconds)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    errors = [o for c in code for o in c.outputs if o.get("output_type") == "error"]
    assert not errors


def _record(name: str, seconds: float) -> None:
    TIMES.parent.mkdir(exist_ok=True)
    times = json.loads(TIMES.read_text()) if TIMES.exists() else {}
    times[name] = round(seconds, 1)
    TIMES.write_text(json.dumps(times, indent=2, sort_keys=True) + "\n")


#: A question in Chinese for the LightRAG import (its corpus holds 三国演义 第一回).
CHINESE_QUESTION = "刘备、关羽和张飞在哪里结义？"


@pytest.fixture(params=["workshop", "graphrag", "lightrag"])
def given_index(request: pytest.FixtureRequest) -> tuple[str, dict[str, object]]:
    """The parameters a user passes: (a) the workshop index, (b) a GraphRAG 3.3.0 import, (c) a LightRAG import, asked in Chinese."""
    kind = str(request.param)
    if kind == "workshop":
        return kind, {"INDEX": str(request.getfixturevalue("workshop_path"))}
    if kind == "graphrag":
        return kind, {"INDEX": str(request.getfixturevalue("peer_graphrag_path"))}
    return kind, {"INDEX": str(request.getfixturevalue("peer_lightrag_path")), "QUESTIONS": [CHINESE_QUESTION]}


def _fingerprint(index: Path) -> dict[str, int]:
    """Every file of an index folder with its size and modification time: what a write would change.

    SQLite's shared-memory file and an empty write-ahead log are made by any reader; a write fills the log.
    """
    files = [p for p in sorted(index.rglob("*")) if p.is_file() and "lock" not in p.name and not p.name.endswith("-shm")]
    return {str(p.relative_to(index)): p.stat().st_mtime_ns ^ p.stat().st_size
            for p in files if not (p.name.endswith("-wal") and p.stat().st_size == 0)}


def test_every_notebook_has_one_parameters_cell() -> None:
    for name in NAMES:
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, f"{name}: {len(tagged)} cells tagged 'parameters' (papermill needs one)"
        assert "INDEX = None" in tagged[0].source, f"{name}: the parameters cell does not take INDEX"
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        assert first_code is tagged[0], f"{name}: the parameters cell must be the first code cell"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_on_a_given_index(
    name: str, given_index: tuple[str, dict[str, object]], workshop_path: Path, kernel_name: str
) -> None:
    """``papermill NOTEBOOK OUT -p INDEX PATH``: each notebook runs to the end on that index, reads it only,
    and asks nothing of the bundled Christmas Carol or MuSiQue questions.

    Its kernel is not told where the bundled Christmas Carol and MuSiQue indexes are: a notebook given an
    index that still opened one of them would build it, and its outputs would show the bundled questions.
    """
    kind, parameters = given_index
    text = _run_with(name, parameters, workshop_path, kernel_name)
    for bundled in ("Jacob Marley", "Tiny Tim", "Bubye River"):
        assert bundled not in text, f"{name} on the {kind} index still shows the bundled data ({bundled!r})"
    if kind == "lightrag" and name not in ("07_evaluate",):
        assert CHINESE_QUESTION in text, f"{name} did not ask the question it was given"


def _run_with(name: str, parameters: dict[str, object], workshop_path: Path, kernel_name: str) -> str:
    """Run notebook ``name`` as papermill does with ``parameters`` (``INDEX`` an index folder); return its outputs' text.

    Fails if a cell raises, or if the notebook wrote to the index it was given.
    """
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    from agrag_lab.lab import kernel_env

    index = Path(str(parameters["INDEX"]))
    before = _fingerprint(index)
    nb = parameterize_notebook(load_notebook_node(str(NOTEBOOKS / f"{name}.ipynb")), parameters)
    client = ShortPollClient(nb, timeout=600, kernel_name=kernel_name, resources={"metadata": {"path": str(NOTEBOOKS)}},
                             allow_errors=False)
    client.execute(env=kernel_env(workshop_path, threads=1))
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    assert _fingerprint(index) == before, f"{name} wrote to the index it was given"
    return "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for c in code for o in c.outputs)


#: The older and other-language layouts run the notebooks made for an imported index each in its own kernel,
#: as papermill does (01 ~4 s, 08 ~4 s, 09 ~28 s of kernel time); the other six run on the 0.3-era and 1.x
#: imports in one kernel (:data:`ONE_KERNEL`, below), and 01-07 on the LightRAG import asked in English.
#: Where each runs:  workshop  graphrag-3.3.0  lightrag-zh  lightrag-en  graphrag-0.3  graphrag-1.x  graphrag-3-zh
#:   01                 yes        yes            yes        one kernel      yes           yes           yes
#:   02-07              yes        yes            yes        one kernel   one kernel    one kernel        -
#:   08, 09             yes        yes            yes           -            yes           yes           yes
LAYOUT_NOTEBOOKS = ("01_quickstart", "08_inspect_a_graphrag_index", "09_graphrag_methods_side_by_side")
#: GraphRAG's own output folders in each layout (``kind -> folder``): 0.3.6's and 1.x's test fixtures of the
#: Christmas Carol (datasets/msgraphrag_christmas_carol/v0, v1: outputs GraphRAG wrote, not converted), and
#: graphrag 3.3.0 over Chinese text (``CHINESE_GRAPHRAG``, written by ``make peers``).
OLDER_LAYOUTS = {"graphrag-0.3": CAROL / "v0", "graphrag-1.x": CAROL / "v1"}
#: graphrag 3.3.0's run over Chinese text (三国演义, 西游记; Chinese entity names): tests/fixtures/peers/README.md.
CHINESE_GRAPHRAG: Path | None = REPO / "tests" / "fixtures" / "peers" / "graphrag_zh"
LAYOUTS = {**OLDER_LAYOUTS, **({"graphrag-3-zh": CHINESE_GRAPHRAG} if CHINESE_GRAPHRAG else {})}


@pytest.fixture(scope="session")
def import_layout(tmp_path_factory: pytest.TempPathFactory,
                  embedder: SentenceTransformerEmbedder) -> Callable[[str], Path]:
    """``import_layout(kind)``: GraphRAG's output in one of :data:`LAYOUTS`, imported at its first use in the session
    (by whichever test asks first), then only read by the notebooks."""
    imported: dict[str, Path] = {}

    def index(kind: str) -> Path:
        if kind not in imported:
            path = tmp_path_factory.mktemp(kind) / "index"
            with Graph.open(path, embedder=embedder) as graph:
                report = graph.import_graphrag(LAYOUTS[kind])
            assert report.format == {"graphrag-0.3": "graphrag-0", "graphrag-1.x": "graphrag-1"}.get(kind, "graphrag-3")
            imported[kind] = path
        return imported[kind]

    return index


@pytest.fixture(scope="session", params=sorted(LAYOUTS))
def layout_index(request: pytest.FixtureRequest, import_layout: Callable[[str], Path]) -> tuple[str, Path]:
    """GraphRAG's output in one of :data:`LAYOUTS`, imported once per run (:func:`import_layout`)."""
    kind = str(request.param)
    return kind, import_layout(kind)


@pytest.mark.parametrize("name", LAYOUT_NOTEBOOKS)
def test_notebook_runs_on_every_graphrag_layout(
    name: str, layout_index: tuple[str, Path], workshop_path: Path, kernel_name: str
) -> None:
    """``papermill NOTEBOOK OUT -p INDEX PATH`` on a GraphRAG 0.3-era, 1.x (and Chinese 3.x) import: the notebook
    runs to the end, reads the index only, and asks questions picked from it, not the bundled ones (the 0.3 and
    1.x outputs are the Christmas Carol too, so the book's names may appear; the bundled questions must not)."""
    kind, index = layout_index
    text = _run_with(name, {"INDEX": str(index)}, workshop_path, kernel_name)
    assert "Examples picked from this index" in text, f"{name} on the {kind} import did not pick its examples"
    assert "Who was Jacob Marley and why does his ghost visit Scrooge?" not in text, (
        f"{name} on the {kind} import asked the bundled questions")
    if kind.endswith("-zh"):  # a Chinese index is asked in Chinese: its most connected entity, "是谁？"
        assert "是谁？" in text, f"{name} on the {kind} import did not ask its picked question in Chinese"


#: The notebooks that run on a layout in one kernel (below), by layout: GraphRAG's 0.3-era, 1.x and Chinese 3.x imports
#: run the six that :data:`LAYOUT_NOTEBOOKS` leaves out; the LightRAG import (English and Chinese text), left to pick its questions
#: (its most connected entity has an English name), runs 01-07 in English (every notebook runs on it above, asked in
#: Chinese; 08 and 09 pick the same examples either way and are the dearest, 09 ~20 s). One kernel for six notebooks
#: takes about 0.6 of the time of six kernels (each starts Python, imports the libraries and loads the model).
OTHER_NOTEBOOKS = tuple(n for n in NAMES if n not in LAYOUT_NOTEBOOKS)
ONE_KERNEL = {
    "graphrag-0.3": OTHER_NOTEBOOKS,
    "graphrag-1.x": OTHER_NOTEBOOKS,
    **({"graphrag-3-zh": OTHER_NOTEBOOKS} if CHINESE_GRAPHRAG else {}),
    "lightrag-picked": tuple(n for n in NAMES if n not in ("08_inspect_a_graphrag_index", "09_graphrag_methods_side_by_side")),
}
#: The questions a notebook asks of the bundled data (workshop, MuSiQue slice, Christmas Carol) when INDEX is None.
BUNDLED_QUESTIONS = (
    "Who worked with Babbage?", "Which numbers did Note G calculate?", "Bubye River",
    "Who was Jacob Marley and why does his ghost visit Scrooge?",
)
#: The line printed before each notebook's cells in a one-kernel run.
PART = re.compile(r"^=== notebook (\S+) ===$", re.MULTILINE)


def _in_one_kernel(names: tuple[str, ...], parameters: dict[str, object], folder: Path) -> Path:
    """The notebooks ``names``, each parameterized as papermill does, one after another in one notebook file.

    Each opens with ``%reset -f`` (its own empty namespace, as in a fresh kernel; the modules stay imported, so the
    model and the libraries load once) and a line naming it; each of its cells starts with a comment naming it, so a
    failing cell says which notebook it belongs to.
    """
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    cells: list[dict[str, object]] = []
    for name in names:
        nb = parameterize_notebook(load_notebook_node(str(NOTEBOOKS / f"{name}.ipynb")), parameters)
        cells.append({"cell_type": "code", "id": f"reset-{name}", "metadata": {}, "outputs": [], "execution_count": None,
                      "source": f"%reset -f\nprint('=== notebook {name} ===')"})
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.source = f"# {name}\n{cell.source}"
            cells.append(cell)
    path = folder / "notebooks-in-one-kernel.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": nb.metadata, "nbformat": 4, "nbformat_minor": 5}))
    return path


@pytest.mark.parametrize("kind", sorted(ONE_KERNEL))
def test_the_notebooks_run_in_one_kernel_on_each_layout(
    kind: str, request: pytest.FixtureRequest, import_layout: Callable[[str], Path], embedder: SentenceTransformerEmbedder,
    workshop_path: Path, kernel_name: str, tmp_path: Path,
) -> None:
    """``papermill NOTEBOOK OUT -p INDEX PATH`` for every notebook on GraphRAG's 0.3-era, 1.x and Chinese 3.x imports and a
    LightRAG import left to pick its questions, run in one kernel (a kernel and the model start once, not nine times):
    each notebook runs to the end, reads the index only, prints the examples it picked and asks its picked question,
    never a bundled one (07, which asks nothing, says there are no judgements to score)."""
    from agrag_lab.notebook_inputs import pick_examples, read_questions

    index = request.getfixturevalue("peer_lightrag_path") if kind.startswith("lightrag") else import_layout(kind)
    with Graph.open(index, embedder=embedder, read_only=True) as graph:
        question = next(iter(read_questions(None, pick_examples(graph)).values()))
    parameters: dict[str, object] = {"INDEX": str(index)}
    notebook = _in_one_kernel(ONE_KERNEL[kind], parameters, tmp_path)
    started = time.perf_counter()
    # _run_with reads NOTEBOOKS / f"{name}.ipynb": an absolute name is that file
    text = _run_with(str(notebook.with_suffix("")), parameters, workshop_path, kernel_name)
    _record(f"{kind}: {len(ONE_KERNEL[kind])} notebooks in one kernel", time.perf_counter() - started)
    found = PART.split(text)[1:]
    parts = dict(zip(found[::2], found[1::2], strict=True))
    assert list(parts) == list(ONE_KERNEL[kind]), f"on the {kind} import only {list(parts)} ran"
    for name, part in parts.items():
        if name == "07_evaluate":
            assert "no relevance judgements for this index" in part, f"{name} on the {kind} import scored something"
        else:
            assert "Examples picked from this index" in part, f"{name} on the {kind} import did not pick its examples"
            assert question in part, f"{name} on the {kind} import did not ask the question picked from it"
        asked = [q for q in BUNDLED_QUESTIONS if q in part]
        assert not asked, f"{name} on the {kind} import asked the bundled questions {asked}"
    if kind.startswith("lightrag"):  # the LightRAG corpus is English and Chinese; its most connected entity is English
        assert not is_cjk(question), f"the LightRAG import picked a Chinese question ({question!r}): no English case"
