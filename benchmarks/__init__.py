"""Benchmarks of agrag_lab (``make bench``, ``make bench-startup``, ``make bench-scale``); run as ``python -m benchmarks.<name>``.

Importing the package makes every benchmark, and each child process it spawns with ``-m benchmarks.<name>``, run
offline and quiet: no model download, no Chroma telemetry, no tokenizers fork warning (a setting the caller made
is kept). One home for what each script set at its top.
"""

import os

for _name, _value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("ANONYMIZED_TELEMETRY", "False"),
                      ("TOKENIZERS_PARALLELISM", "false")):
    os.environ.setdefault(_name, _value)
