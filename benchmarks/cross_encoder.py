"""A trained cross-encoder for the re-rank benchmarks, made once on this machine from the bundled weights.

No trained cross-encoder can be downloaded here, and the one the re-rank
latency benchmark used before (the bundled MiniLM with an untrained, seeded
head) ranks nothing, so nobody could tell whether scoring fewer pairs, or an
int8 graph, hurts results. :func:`trained_cross_encoder` trains one:

* start: the bundled all-MiniLM-L6-v2 (:func:`agrag_lab.model_files.default_model_path`)
  with a fresh one-label head (sentence-transformers' ``CrossEncoder``);
* data: SciFact's **train** claims (``claims_train.csv`` over ``corpus_train.csv``;
  ``../shared/datasets/scifact``, or ``$AGRAG_SCIFACT``): each claim's cited
  abstracts are positives, and :data:`SETTINGS` ``negatives`` hard negatives per
  claim are drawn (seeded) from bm25s's top ``bm25_depth`` abstracts for it that
  it does not cite, and ``random_negatives`` random abstracts; the shuffled
  pairs are cut to ``max_pairs`` (what 2 shared cores train in minutes);
* training: one epoch of binary cross-entropy on the logit, AdamW with a linear
  warm-up and decay, fixed seed, ``max_length`` tokens per pair; only the top
  ``trained_layers`` transformer layers and the head learn (the embeddings and
  lower layers stay the bundled model's: small data, and less than half the
  work of training every layer on 2 shared cores). The loop is
  written here (about twenty lines) because sentence-transformers' trainer needs
  ``datasets`` and ``accelerate``, which agrag_lab does not otherwise install;
  the model and tokenizer are the ``CrossEncoder``'s own and it is saved with
  ``CrossEncoder.save``, so any sentence-transformers or agrag_lab reader loads it.

The folder is ``.agrag/bench-models/scifact-cross-encoder-<digest>``, where the
digest is the sha256 of the inputs (the SciFact zip, the bundled model's files,
:data:`SETTINGS`); ``inputs.json`` in it records them and is written last, so a
folder with it is complete and is used as it is (made once). It is a benchmark
asset, never a default of any recipe; it is evaluated only on data it was not
trained on (MuSiQue, the Christmas Carol questions, the workshop, GraphRAG-Bench
Medical).

Cost (2026-12-02, load average 12-15 on 2 cores, nice 15, one torch thread):
1,600 pairs, 100 steps, 409 s of training after 12 s of preparing the pairs;
the mean loss of the first 20 steps 0.686, of the last 20 0.605. A weak
re-ranker (few steps on a loaded machine): its quality against HYBRID is
measured before it judges anything (BENCHMARKS.md, "Re-rank").

MuSiQue folds (:func:`musique_cross_encoder`, :data:`MUSIQUE_SETTINGS`): the
same start, trained on half of the bundled MuSiQue-100 (fold 1: questions 1-50;
fold 2: 51-100) and judged on MuSiQue's other half only (and on the other
benchmarks, which neither fold saw). Cost (2026-12-02, both folds at once at
load 6-14, nice 15, one torch thread each): 1,354 / 1,357 pairs, 170 steps,
1,877 / 1,861 s; loss 0.544 -> 0.432 and 0.576 -> 0.480.

Run: ``python -m benchmarks.cross_encoder`` (SciFact) or ``--musique-fold 1``
(prints the folder and, when it trained, what it cost).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: What the model is trained with; any change trains a new model (it is part of the digest).
SETTINGS: dict[str, Any] = {
    "version": 1,
    "split": "train",
    "max_length": 64,
    "epochs": 1,
    "batch_size": 16,
    "learning_rate": 3e-4,
    "warmup_share": 0.1,
    "negatives": 1,
    "random_negatives": 1,
    "max_pairs": 1600,
    "bm25_depth": 30,
    "seed": 30,
    "trained_layers": 2,
    "threads": 1,
}
ROOT = Path(".agrag") / "bench-models"
_INPUTS = "inputs.json"


#: The MuSiQue folds' settings: ``fold`` 1 trains on questions 1-50 of the bundled 100 (file order) and is
#: judged on 51-100 only; fold 2 the other way round. Pairs: each training question with each of its 20
#: paragraphs (``is_supporting`` = 1) and each single-hop sub-question (``#k`` replaced by step k's answer) with
#: its supporting paragraph (1) and ``sub_negatives`` other paragraphs of the same question (0).
MUSIQUE_SETTINGS: dict[str, Any] = {
    "version": 1,
    "questions": 100,
    "max_length": 128,
    "epochs": 2,
    "batch_size": 16,
    "learning_rate": 2e-4,
    "warmup_share": 0.1,
    "sub_negatives": 2,
    "seed": 30,
    "trained_layers": 3,
    "threads": 1,
}
FOLDS = (1, 2)


def fold_questions(fold: int) -> tuple[list[str], list[str]]:
    """(trained on, judged on): the bundled MuSiQue question ids of ``fold`` (1: first half trained, 2: second)."""
    from agrag_lab import datasets

    if fold not in FOLDS:
        raise ValueError(f"fold must be one of {FOLDS} (got {fold})")
    qids = list(datasets.musique().queries)
    half = len(qids) // 2
    first, second = qids[:half], qids[half:]
    return (first, second) if fold == 1 else (second, first)


def _base_files() -> dict[str, Path]:
    from agrag_lab.model_files import default_model_path

    base = Path(default_model_path())
    return {f"base/{n}": base / n for n in ("model.safetensors", "config.json", "tokenizer.json") if (base / n).is_file()}


def _inputs(scifact: Path) -> dict[str, Any]:
    """The files and settings the model is made from, each file by its sha256."""
    from agrag_lab.onnx_models import file_sha256

    files = {"scifact.zip": scifact} | _base_files()
    return {"settings": SETTINGS, "files": {k: file_sha256(p) for k, p in sorted(files.items())}}


def _musique_inputs(fold: int) -> dict[str, Any]:
    from agrag_lab import datasets
    from agrag_lab.onnx_models import file_sha256

    files = {"musique_train.json": datasets.DATASETS_DIR / "musique" / "musique_train.json"} | _base_files()
    return {"settings": MUSIQUE_SETTINGS, "fold": fold, "trained_on": fold_questions(fold)[0],
            "files": {k: file_sha256(p) for k, p in sorted(files.items())}}


def _digest(inputs: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:12]


def model_folder(scifact: Path | None = None, root: Path = ROOT) -> Path:
    """Where the model of these inputs is (or would be) kept."""
    return root / f"scifact-cross-encoder-{_digest(_inputs(_zip(scifact)))}"


def musique_folder(fold: int, root: Path = ROOT) -> Path:
    """Where MuSiQue fold ``fold``'s model is (or would be) kept."""
    return root / f"musique-fold{fold}-cross-encoder-{_digest(_musique_inputs(fold))}"


def _zip(scifact: Path | None) -> Path:
    from agrag_lab.eval.loaders import scifact_path

    path = scifact if scifact is not None else scifact_path()
    return path / "scifact.zip" if path.is_dir() else path


def trained_cross_encoder(scifact: Path | None = None, root: Path = ROOT) -> Path:
    """The trained cross-encoder's folder (a ``CrossEncoder.save`` folder), trained first if it is not there.

    ``scifact``: the SciFact folder or zip (default ``../shared/datasets/scifact`` or ``$AGRAG_SCIFACT``).
    The cost of a training run is in ``inputs.json`` (``train_seconds``, ``pairs``).
    """
    source = _zip(scifact)
    return _made(model_folder(source, root), lambda: training_pairs(source), SETTINGS, _inputs(source))


def musique_cross_encoder(fold: int, root: Path = ROOT) -> Path:
    """MuSiQue fold ``fold``'s cross-encoder (trained first if it is not there); judge it on
    ``fold_questions(fold)[1]`` only."""
    return _made(musique_folder(fold, root), lambda: musique_pairs(fold), MUSIQUE_SETTINGS, _musique_inputs(fold))


def _made(
    out: Path, pairs: Callable[[], list[tuple[str, str, float]]], settings: dict[str, Any], inputs: dict[str, Any]
) -> Path:
    if (out / _INPUTS).is_file():
        return out
    partial = out.with_name(f"{out.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        record = _train(pairs, settings, partial)
        record["inputs"] = inputs
        (partial / _INPUTS).write_text(json.dumps(record, indent=1))
        partial.replace(out)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return out


def training_pairs(scifact: Path) -> list[tuple[str, str, float]]:
    """(claim, title + newline + abstract, label) of SciFact's train claims: cited = 1, bm25s hard / random = 0."""
    import bm25s

    from agrag_lab.eval.scifact import scifact as load

    rng = random.Random(SETTINGS["seed"])
    bench = load(scifact, split=SETTINGS["split"])
    docs = list(bench.documents)
    texts = [f"{d.title}\n{d.text}" for d in docs]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    queries = list(bench.judged_queries)
    found, _ = retriever.retrieve(
        bm25s.tokenize([bench.queries[q] for q in queries], stopwords="en", show_progress=False),
        k=SETTINGS["bm25_depth"], show_progress=False,
    )
    index = {d.id: i for i, d in enumerate(docs)}
    pairs: list[tuple[str, str, float]] = []
    for row, qid in zip(found, queries, strict=True):
        claim = bench.queries[qid]
        cited = {index[d] for d in bench.relevant(qid)}
        pairs += [(claim, texts[i], 1.0) for i in sorted(cited)]
        hard = [int(i) for i in row if int(i) not in cited]
        pairs += [(claim, texts[i], 0.0) for i in rng.sample(hard, min(SETTINGS["negatives"], len(hard)))]
        others = [i for i in rng.sample(range(len(docs)), 8) if i not in cited][: SETTINGS["random_negatives"]]
        pairs += [(claim, texts[i], 0.0) for i in others]
    rng.shuffle(pairs)
    return pairs[: SETTINGS["max_pairs"]]


def musique_pairs(fold: int) -> list[tuple[str, str, float]]:
    """(question, title + newline + paragraph, label) of the fold's training questions (:data:`MUSIQUE_SETTINGS`)."""
    from agrag_lab import datasets

    rng = random.Random(MUSIQUE_SETTINGS["seed"])
    trained = set(fold_questions(fold)[0])
    records = json.loads((datasets.DATASETS_DIR / "musique" / "musique_train.json").read_text(encoding="utf-8"))
    pairs: list[tuple[str, str, float]] = []
    for record in records:
        if record["id"] not in trained:
            continue
        texts = [f"{p['title']}\n{p['paragraph_text']}" for p in record["paragraphs"]]
        pairs += [(record["question"], t, float(p["is_supporting"])) for t, p in zip(texts, record["paragraphs"],
                                                                                  strict=True)]
        answers: list[str] = []
        for step in record["question_decomposition"]:
            question = str(step["question"])
            for k, answer in enumerate(answers, 1):
                question = question.replace(f"#{k}", answer)
            answers.append(str(step["answer"]))
            support = step.get("paragraph_support_idx")
            if support is None:
                continue
            pairs.append((question, texts[support], 1.0))
            others = [i for i in range(len(texts)) if i != support]
            pairs += [(question, texts[i], 0.0) for i in rng.sample(others, MUSIQUE_SETTINGS["sub_negatives"])]
    rng.shuffle(pairs)
    return pairs


def _train(
    make_pairs: Callable[[], list[tuple[str, str, float]]], settings: dict[str, Any], out: Path
) -> dict[str, Any]:
    """Train on ``make_pairs()`` with ``settings`` and save into ``out``; return what it cost."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from sentence_transformers import CrossEncoder
    from transformers import get_linear_schedule_with_warmup

    from agrag_lab.model_files import default_model_path

    started = time.perf_counter()
    pairs = make_pairs()
    prepared = time.perf_counter() - started
    torch.manual_seed(settings["seed"])
    torch.set_num_threads(settings["threads"])  # on a shared, loaded machine two threads mostly wait for each other
    encoder = CrossEncoder(default_model_path(), num_labels=1, max_length=settings["max_length"], device="cpu")
    model, tokenizer = encoder.model, encoder.tokenizer
    # only the top layers and the head learn: the embeddings and lower layers stay the bundled model's
    frozen = [model.base_model.embeddings, *model.base_model.encoder.layer[: -settings["trained_layers"]]]
    for part in frozen:
        for parameter in part.parameters():
            parameter.requires_grad = False
    size = settings["batch_size"]
    steps = settings["epochs"] * -(-len(pairs) // size)
    optimiser = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings["learning_rate"])
    schedule = get_linear_schedule_with_warmup(  # type: ignore[no-untyped-call]
        optimiser, int(settings["warmup_share"] * steps), steps
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    losses: list[float] = []
    for _ in range(settings["epochs"]):
        for start in range(0, len(pairs), size):
            batch = pairs[start:start + size]
            encoded = tokenizer([p[0] for p in batch], [p[1] for p in batch], padding=True, truncation=True,
                                max_length=settings["max_length"], return_tensors="pt")
            logits = model(**encoded).logits.view(-1)
            loss = loss_fn(logits, torch.tensor([p[2] for p in batch], dtype=torch.float32))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            losses.append(float(loss.detach()))
            if len(losses) % 20 == 0:
                print(f"step {len(losses)} of {steps}: loss {statistics.fmean(losses[-20:]):.4f}, "
                      f"{time.perf_counter() - started - prepared:.0f} s", file=sys.stderr, flush=True)
    model.eval()
    encoder.save(str(out))
    tail = losses[-20:]
    return {
        "pairs": len(pairs),
        "positives": sum(1 for p in pairs if p[2] > 0),
        "steps": steps,
        "prepare_seconds": round(prepared, 1),
        "train_seconds": round(time.perf_counter() - started - prepared, 1),
        "first_loss": round(sum(losses[:20]) / max(1, len(losses[:20])), 4),
        "last_loss": round(sum(tail) / max(1, len(tail)), 4),
        "torch_threads": torch.get_num_threads(),
    }


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--musique-fold", type=int, choices=FOLDS, default=None,
                        help="train MuSiQue fold 1 (questions 1-50) or 2 (51-100) instead of SciFact")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    folder = trained_cross_encoder() if args.musique_fold is None else musique_cross_encoder(args.musique_fold)
    record = json.loads((folder / _INPUTS).read_text())
    print(json.dumps({"folder": str(folder), "seconds_now": round(time.perf_counter() - started, 1),
                      **{k: v for k, v in record.items() if k != "inputs"}}, indent=1))


if __name__ == "__main__":
    main()
