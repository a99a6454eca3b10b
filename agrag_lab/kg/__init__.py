"""Knowledge-graph layer (filled in below)."""
