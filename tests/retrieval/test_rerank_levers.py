"""The re-rank's levers: what it scores (``rerank.pool``) and in what precision (``rerank.precision``, an int8
copy of the cross-encoder's ONNX graph, made once and made again when the fp32 graph changes)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Graph
from agrag_lab.errors import RecipeError
from agrag_lab.recipes import HYBRID_RERANKED, Recipe, Rerank
from agrag_lab.retrieval.fusion import rrf
from agrag_lab.retrieval.settings import RetrievalSettings

QUERY = "Who worked with Babbage?"
#: The largest |int8 - fp32| score allowed on the workshop's pairs (sigmoid scores, 0..1). Measured with this
#: model (the bundled encoder, untrained head) on the workshop pools: max 0.0029 over 1,217 pairs. A trained
#: model's scores move more (0.10-0.14 for the SciFact-trained benchmark model): BENCHMARKS.md, "Re-rank levers".
INT8_BOUND = 0.02


def _recipe(model: Path, **rerank: str) -> Recipe:
    return HYBRID_RERANKED.replace(**{"rerank.model": str(model), **{f"rerank.{k}": v for k, v in rerank.items()}})


def test_the_default_fused_pool_scores_the_methods_fused_first_two_limits_then_the_reports(
    workshop_graph: Graph, cross_encoder_path: Path
) -> None:
    """HYBRID_RERANKED's default pool ("neighbourhood" before it: about twice the pairs; BENCHMARKS.md, "Re-rank levers")."""
    recipe = HYBRID_RERANKED.replace(**{"rerank.model": str(cross_encoder_path)})
    run = workshop_graph.engine().run(QUERY, recipe)
    trace = run.trace
    lists = {m.name: [h.key for h in m.hits] for m in trace.methods if m.ok}
    fused = rrf(lists, k=RetrievalSettings().rrf_k, weights=recipe.fusion.weights,
                convention=recipe.fusion.convention).keys
    reports = [k for k, i in trace.items.items() if i.kind == "community"]
    expected = list(dict.fromkeys([*fused[: 2 * recipe.limit], *reports]))
    # scored in this order (the pool's), and nothing else
    assert list(trace.context.rerank_scores) == expected
    rerank = trace.outcome.rerank
    assert rerank is not None and (rerank.pool, rerank.precision) == ("fused", "fp32")
    assert {m.key for m in rerank.moves if m.scored} == set(expected) & set(trace.outcome.fusion.keys)


def test_the_neighbourhood_pool_scores_each_lists_first_two_limits_in_list_order(
    workshop_graph: Graph, cross_encoder_path: Path
) -> None:
    recipe = HYBRID_RERANKED.replace(**{"rerank.model": str(cross_encoder_path), "rerank.pool": "neighbourhood"})
    trace = workshop_graph.engine().run(QUERY, recipe).trace
    reach = 2 * recipe.limit
    firsts = [h.key for m in trace.methods for h in m.hits[:reach]]
    reports = [k for k, i in trace.items.items() if i.kind == "community"]
    assert list(trace.context.rerank_scores) == list(dict.fromkeys([*firsts, *reports]))
    assert trace.outcome.rerank is not None and trace.outcome.rerank.pool == "neighbourhood"


def test_int8_scores_stay_close_to_fp32_on_real_pairs(workshop_graph: Graph, cross_encoder_path: Path) -> None:
    """The same pool scored by the int8 copy: within INT8_BOUND of fp32, and the trace says int8."""
    fp32 = workshop_graph.engine().run(QUERY, _recipe(cross_encoder_path, precision="fp32")).trace
    int8 = workshop_graph.engine().run(QUERY, _recipe(cross_encoder_path, precision="int8")).trace
    assert int8.outcome.rerank is not None and int8.outcome.rerank.precision == "int8"
    a, b = fp32.context.rerank_scores, int8.context.rerank_scores
    assert list(a) == list(b) and len(a) > 20
    diff = np.abs(np.array(list(a.values())) - np.array(list(b.values())))
    assert diff.max() < INT8_BOUND and diff.max() > 0.0  # a different graph, close scores


def test_the_int8_copy_is_made_once_and_again_when_the_fp32_graph_changes(
    cross_encoder_path: Path, tmp_path: Path
) -> None:
    import onnx

    from agrag_lab.onnx_models import OnnxEncoder, export_onnx, file_sha256, quantize_int8

    export = tmp_path / "export"
    shutil.copytree(export_onnx(cross_encoder_path, kind="cross-encoder"), export)
    first = quantize_int8(export)
    assert first == tmp_path / "export-int8"
    made = (first / "checksum.json").stat().st_mtime_ns
    assert quantize_int8(export) == first and (first / "checksum.json").stat().st_mtime_ns == made
    pair = [("Who designed the engine?", "Babbage designed the Analytical Engine.")]
    before = float(OnnxEncoder(first).run(pair)[0].ravel()[0])
    # the fp32 graph changes (as a new export of a changed model would): its head's bias moves by +1
    graph = onnx.load(str(export / "model.onnx"))
    bias = next(t for t in graph.graph.initializer if t.name.endswith("classifier.bias"))
    bias.CopyFrom(onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(bias) + 1.0, bias.name))
    onnx.save(graph, str(export / "model.onnx"))
    record = json.loads((export / "checksum.json").read_text())
    record["onnx_sha256"] = file_sha256(export / "model.onnx")
    (export / "checksum.json").write_text(json.dumps(record))
    again = quantize_int8(export)
    assert json.loads((again / "checksum.json").read_text())["source_onnx_sha256"] == record["onnx_sha256"]
    after = float(OnnxEncoder(again).run(pair)[0].ravel()[0])
    assert after == pytest.approx(before + 1.0, abs=0.05)


def test_a_bad_pool_or_precision_says_what_is_allowed() -> None:
    with pytest.raises(RecipeError, match=r"pool: must be one of 'neighbourhood', 'fused'"):
        Rerank("cross_encoder", model="m", pool="everything")  # type: ignore[arg-type]
    with pytest.raises(RecipeError, match=r"precision: must be one of 'fp32', 'int8'"):
        Rerank("cross_encoder", model="m", precision="fp16")  # type: ignore[arg-type]


def test_small_batches_score_the_real_pool_as_one_batch_does(workshop_graph: Graph, cross_encoder_path: Path) -> None:
    """Pairs go through in batches of BATCH_SIZE (less padding, faster); each score is what one batch of the whole
    pool gives, within 1e-6, so no result changes."""
    from agrag_lab.retrieval.rerank import BATCH_SIZE, CrossEncoderReranker

    trace = workshop_graph.engine().run(QUERY, _recipe(cross_encoder_path, pool="neighbourhood")).trace
    keys = list(trace.context.rerank_scores)
    texts = [f"{trace.items[k].title}\n{trace.items[k].text}" for k in keys]
    assert BATCH_SIZE == 8 and len(texts) > 4 * BATCH_SIZE  # several batches of different padded lengths
    small = CrossEncoderReranker(str(cross_encoder_path)).score(QUERY, texts)
    whole = CrossEncoderReranker(str(cross_encoder_path), batch_size=len(texts)).score(QUERY, texts)
    assert np.abs(small - whole).max() < 1e-6
    assert np.allclose(small, list(trace.context.rerank_scores.values()), atol=1e-6)  # the run used BATCH_SIZE
