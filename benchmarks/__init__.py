"""Benchmarks of agrag_lab (``make bench``, ``make bench-startup``, ``make bench-scale``); run as ``python -m benchmarks.<name>``.

Importing the package makes every benchmark, and each child process it spawns with ``-m benchmarks.<name>``, run
offline and quiet: no model download, no Chroma telemetry, no tokenizers fork warning (a setting the caller made
is kept). One home for what each script set at its top.
"""

import os

for _name, _value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("ANONYMIZED_TELEMETRY", "False"),
                      ("TOKENIZERS_PARALLELISM", "false")):
    os.environ.setdefault(_name, _value)


def compile_package(checkout: "os.PathLike[str] | str | None" = None) -> None:
    """Compile ``checkout``'s ``agrag_lab`` (this one's by default) to bytecode, as every make target does.

    A start-up benchmark times a set-up install: an editable install is not compiled by the installer, and
    where PYTHONDONTWRITEBYTECODE is set each spawned process would otherwise compile the package again.
    """
    import compileall
    from pathlib import Path

    root = Path(checkout) if checkout is not None else Path(__file__).resolve().parents[1]
    compileall.compile_dir(str(root / "agrag_lab"), quiet=1, workers=0)
