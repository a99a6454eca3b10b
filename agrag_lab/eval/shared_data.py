"""Where a benchmark that is read from a path (not bundled: its licence or its size) is found on this machine."""

from __future__ import annotations

import os
from pathlib import Path

from agrag_lab.errors import DatasetError

_REPO = Path(__file__).resolve().parents[2]


def shared_dataset(folder: str, env: str, name: str) -> Path:
    """A data set that is read from a path: ``$env``, else ``../shared/datasets/<folder>`` (here or beside the repository).

    Raises
    ------
    DatasetError
        None of those places holds it; the message says how to name it.
    """
    candidates = [Path(os.environ[env])] if os.environ.get(env) else []
    candidates += [Path("../shared/datasets") / folder, _REPO.parent / "shared" / "datasets" / folder]
    for path in candidates:
        if path.exists():
            return path
    raise DatasetError(
        f"{name} is not bundled; say where it is: --benchmark {name}:PATH, or set {env}=PATH "
        f"(the folder shared/datasets/{folder})"
    )
