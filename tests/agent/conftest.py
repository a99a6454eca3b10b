"""Fixtures of the agent tests."""

from __future__ import annotations

# DEV-ONLY (remove): reuse a prebuilt workshop index
import os as _os
from pathlib import Path as _Path

import pytest

if _os.environ.get("AGRAG_DEV_WORKSHOP_INDEX"):

    @pytest.fixture(scope="session")
    def workshop_path() -> _Path:
        return _Path(_os.environ["AGRAG_DEV_WORKSHOP_INDEX"])
