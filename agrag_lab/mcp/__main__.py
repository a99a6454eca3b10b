"""``python -m agrag_lab.mcp ...``: the same as ``agrag-lab mcp ...``."""

from agrag_lab.mcp.cli import main

raise SystemExit(main())
