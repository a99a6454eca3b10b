"""The extras: a core install runs ``agrag-lab search`` and ``agrag-lab mcp``; a missing extra says which to install."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agrag_lab.errors import AgragError, MissingExtraError
from agrag_lab.extras import EXTRAS, require

ROOT = Path(__file__).resolve().parents[1]
#: Top-level modules only the [lab] extra brings (and Jupyter's own stack).
LAB_MODULES = ("jupyterlab", "jupyter_server", "notebook", "ipykernel", "ipywidgets", "anywidget", "plotly")


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600, check=False)


def test_search_and_mcp_import_nothing_of_the_lab_extra(workshop_path: Path) -> None:
    done = _python(
        """
        import sys
        from agrag_lab.cli import build_parser, main
        from agrag_lab.mcp.cli import _evidence_server

        assert main(["search", "Who wrote Note G?", "--index", sys.argv[1], "--limit", "3"]) == 0
        server = _evidence_server(build_parser(only="mcp").parse_args(["mcp", "--index", sys.argv[1]]))
        server.warm_up()  # a discover and a find_entities, as the first client's calls
        print("TOOLS", len(server.tool_names))
        print("LOADED", sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2].split(","))))
        """,
        str(workshop_path), ",".join(LAB_MODULES),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("TOOLS ") and int(line.split()[1]) > 0 for line in lines), done.stdout
    assert "LOADED []" in lines, done.stdout


@pytest.mark.parametrize(
    ("blocked", "module", "extra"),
    [("plotly", "agrag_lab.widgets", "lab"), ("plotly", "agrag_lab.charts", "lab"), ("ranx", "agrag_lab.eval", "eval")],
)
def test_a_package_whose_extra_is_missing_names_the_extra(blocked: str, module: str, extra: str) -> None:
    done = _python(
        f"""
        import sys
        sys.modules[{blocked!r}] = None  # as if the extra were not installed
        try:
            import {module}
        except ImportError as exc:
            print(type(exc).__name__, exc)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MissingExtraError "), done.stdout
    assert f"pip install 'agrag_lab[{extra}]'" in done.stdout and blocked in done.stdout


def test_the_missing_extra_error_is_an_import_error_of_the_tree() -> None:
    with pytest.raises(MissingExtraError, match=r"pip install 'agrag_lab\[falkordb\]'") as caught:
        require("falkordb", "agrag_lab_no_such_client", feature="the FalkorDB graph store")
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, AgragError)
    assert set(EXTRAS) == {"lab", "eval", "falkordb"}
