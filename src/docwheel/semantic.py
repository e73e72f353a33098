"""The run-time half of the semantic layer: a static query encoder and int8 section vectors.

Everything here needs numpy and the standard library only, so a docs wheel can rank by
meaning without torch, transformers or tokenizers (a test imports this module with those
made unimportable). The build-time half, `docwheel.distill`, writes what this reads.

An encoder directory holds:

- ``encoder.json``: format, dimensions, pooling and truncation, tokenizer settings and the
  model's name and licence (sorted keys, so the bytes are reproducible);
- ``vocab.txt``: one token per line, line ``i`` is token id ``i``;
- ``token_vectors.npy``: int8 ``(vocab, dim)``; ``token_scales.npy``: float32 ``(vocab,)``.
  Token ``i``'s vector is ``token_vectors[i] * token_scales[i]``.

A section vector directory holds ``section_vectors.npy`` (int8 ``(sections, dim)``) and
``section_scales.npy`` (float32 ``(sections,)``), scaled so that each dequantised row has
unit length: the cosine with a unit query is one dot product and one multiply.

`StaticEncoder.encode` reproduces model2vec's ``StaticModel.encode`` for a distilled
WordPiece model: text cut to ``max_chars`` characters, tokens without [CLS]/[SEP], cut to
``max_tokens``, unknown tokens dropped after the cut, the mean of the token vectors, unit
length (an all-unknown or empty text gives the zero vector).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SemanticFilesError
from .wordpiece import WordPiece, WordPieceSettings

__all__ = [
    "ENCODER_FILES",
    "SECTION_FILES",
    "SectionVectors",
    "StaticEncoder",
    "quantize_rows",
    "quantize_sections",
    "save_encoder",
    "save_section_vectors",
]

FORMAT = "docwheel-static-encoder"
FORMAT_VERSION = 1
CONFIG_FILE = "encoder.json"
VOCAB_FILE = "vocab.txt"
TOKEN_VECTORS_FILE = "token_vectors.npy"
TOKEN_SCALES_FILE = "token_scales.npy"
SECTION_VECTORS_FILE = "section_vectors.npy"
SECTION_SCALES_FILE = "section_scales.npy"
ENCODER_FILES = (CONFIG_FILE, VOCAB_FILE, TOKEN_VECTORS_FILE, TOKEN_SCALES_FILE)
SECTION_FILES = (SECTION_VECTORS_FILE, SECTION_SCALES_FILE)
# Section vectors are kept as one float32 copy up to this size; beyond it they are
# converted a block of rows at a time for each query (SectionVectors).
DENSE_BYTES = 64 * 2**20
BLOCK_ROWS = 8192


class StaticEncoder:
    """Texts to unit vectors: the mean of int8 token vectors, numpy only."""

    def __init__(
        self,
        tokenizer: WordPiece,
        vectors: np.ndarray,
        scales: np.ndarray,
        *,
        max_tokens: int | None = 512,
        max_chars: int | None = None,
        metadata: Mapping[str, Any] | None = None,
    ):
        if vectors.dtype != np.int8 or vectors.ndim != 2:
            raise ValueError(f"token vectors must be a 2-D int8 array, not {vectors.dtype} {vectors.shape}")
        if scales.shape != (vectors.shape[0],):
            raise ValueError(f"token scales have shape {scales.shape}, expected ({vectors.shape[0]},)")
        if len(tokenizer.tokens) != vectors.shape[0]:
            raise ValueError(
                f"{len(tokenizer.tokens)} tokens in the vocabulary but {vectors.shape[0]} vectors"
            )
        self.tokenizer = tokenizer
        self.vectors = vectors
        self.scales = scales.astype(np.float32, copy=False)
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self.metadata = dict(metadata or {})

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def token_ids(self, text: str) -> list[int]:
        """The ids whose vectors are averaged for ``text``, after both cuts."""
        if self.max_chars is not None:
            text = text[: self.max_chars]
        ids = self.tokenizer.encode(text)
        if self.max_tokens is not None:
            ids = ids[: self.max_tokens]
        unk = self.tokenizer.unk_id
        return [i for i in ids if i != unk]

    def encode(self, texts: str | Sequence[str]) -> np.ndarray:
        """Unit float32 vectors, shape ``(len(texts), dim)`` (``(1, dim)`` for one string)."""
        if isinstance(texts, str):
            texts = [texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            ids = self.token_ids(text)
            if ids:
                index = np.asarray(ids, dtype=np.intp)
                rows = self.vectors[index].astype(np.float32)
                rows *= self.scales[index, None]
                out[row] = rows.mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True) + np.float32(1e-32)
        return (out / norms).astype(np.float32, copy=False)

    @classmethod
    def load(cls, directory: str | Path) -> StaticEncoder:
        """Read an encoder directory; `SemanticFilesError` names the file that is wrong."""
        directory = Path(directory)
        config_path = directory / CONFIG_FILE
        config = _read_json(config_path)
        try:
            if config["format"] != FORMAT or config["format_version"] != FORMAT_VERSION:
                raise SemanticFilesError(
                    config_path,
                    f"not a version {FORMAT_VERSION} {FORMAT} file "
                    f"({config['format']!r} version {config['format_version']!r})",
                )
            dim = int(config["dim"])
            vocab_size = int(config["vocab_size"])
            tok = config["tokenizer"]
            settings = WordPieceSettings(
                unk_token=tok["unk_token"],
                continuing_subword_prefix=tok["continuing_subword_prefix"],
                max_input_chars_per_word=int(tok["max_input_chars_per_word"]),
                clean_text=bool(tok["clean_text"]),
                handle_chinese_chars=bool(tok["handle_chinese_chars"]),
                strip_accents=bool(tok["strip_accents"]),
                lowercase=bool(tok["lowercase"]),
            )
            special_tokens = [str(t) for t in tok["special_tokens"]]
            max_tokens = config["max_tokens"]
            max_chars = config["max_chars"]
            if config["pooling"] != "mean" or config["normalize"] is not True:
                raise SemanticFilesError(config_path, "only mean pooling with unit length is supported")
        except (KeyError, TypeError, ValueError) as err:
            raise SemanticFilesError(config_path, f"invalid encoder settings: {err!r}") from None

        vocab_path = directory / VOCAB_FILE
        try:
            text = vocab_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SemanticFilesError(vocab_path, "missing") from None
        except (OSError, UnicodeDecodeError) as err:
            raise SemanticFilesError(vocab_path, _reason(err)) from None
        tokens = text.split("\n")
        if tokens and tokens[-1] == "":
            tokens.pop()
        if len(tokens) != vocab_size:
            raise SemanticFilesError(vocab_path, f"{len(tokens)} tokens, expected {vocab_size}")
        try:
            tokenizer = WordPiece(tokens, settings, special_tokens)
        except ValueError as err:
            raise SemanticFilesError(vocab_path, str(err)) from None

        vectors = _load_array(directory / TOKEN_VECTORS_FILE, np.int8, (vocab_size, dim))
        scales = _load_array(directory / TOKEN_SCALES_FILE, np.float32, (vocab_size,))
        if not np.isfinite(scales).all():
            raise SemanticFilesError(directory / TOKEN_SCALES_FILE, "scales are not all finite")
        return cls(
            tokenizer,
            vectors,
            scales,
            max_tokens=None if max_tokens is None else int(max_tokens),
            max_chars=None if max_chars is None else int(max_chars),
            metadata=config.get("model") or {},
        )


class SectionVectors:
    """One int8 vector per section, memory-mapped; `cosine` scores a query against all.

    numpy has no fast int8 product, so the vectors are dequantised to float32 for it (4
    bytes a dimension, 1 KiB a section at 256 dimensions). Up to ``dense_bytes`` of them
    the first `cosine` call keeps that copy: converting on every query costs more than the
    product itself (about 50 µs per thousand sections). Beyond it, each query converts a
    block at a time into one reusable buffer, so a huge docs set does not hold a float copy
    of every section in memory: 223,000 sections at 256 dimensions take 24 ms a query that
    way instead of 17 ms, and hold 8 MB of floats instead of 228 MB. Both ways give the
    same numbers.
    """

    def __init__(self, vectors: np.ndarray, scales: np.ndarray, dense_bytes: int = DENSE_BYTES):
        if vectors.dtype != np.int8 or vectors.ndim != 2 or scales.shape != (vectors.shape[0],):
            raise ValueError("section vectors must be int8 (n, dim) with float32 scales (n,)")
        self.vectors = vectors
        self.scales = scales
        self.dense_bytes = dense_bytes
        self._dense: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def cosine(self, query_vec: np.ndarray) -> np.ndarray:
        """float32 cosine of ``query_vec`` (one vector, any length) with every section."""
        query = np.asarray(query_vec, dtype=np.float32).reshape(-1)
        if query.shape != (self.dim,):
            raise ValueError(f"query has {query.shape[0]} dimensions, sections have {self.dim}")
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or len(self) == 0:
            return np.zeros(len(self), dtype=np.float32)
        unit = query / np.float32(norm)
        if len(self) * self.dim * 4 > self.dense_bytes:
            products = self._blockwise_products(unit)
        else:
            if self._dense is None:
                self._dense = np.array(self.vectors, dtype=np.float32)
            products = _product(self._dense, unit)
        # A row is q * scale: its product with the query is scaled once, not each element.
        products *= np.asarray(self.scales, dtype=np.float32)
        return products

    def _blockwise_products(self, unit: np.ndarray) -> np.ndarray:
        products = np.empty(len(self), dtype=np.float32)
        buffer = np.empty((min(BLOCK_ROWS, len(self)), self.dim), dtype=np.float32)
        for start in range(0, len(self), BLOCK_ROWS):
            stop = min(start + BLOCK_ROWS, len(self))
            block = buffer[: stop - start]
            np.copyto(block, self.vectors[start:stop], casting="unsafe")
            products[start:stop] = _product(block, unit)
        return products

    @classmethod
    def load(cls, directory: str | Path, dim: int | None = None) -> SectionVectors:
        directory = Path(directory)
        vectors = _load_array(directory / SECTION_VECTORS_FILE, np.int8, (None, dim))
        scales = _load_array(directory / SECTION_SCALES_FILE, np.float32, (vectors.shape[0],))
        if not np.isfinite(scales).all():
            raise SemanticFilesError(directory / SECTION_SCALES_FILE, "scales are not all finite")
        return cls(vectors, scales)


def _product(rows: np.ndarray, unit: np.ndarray) -> np.ndarray:
    # einsum, not @: a BLAS product wakes BLAS threads, and on a busy machine waiting for
    # them took 10 ms instead of 0.2 ms (5,000 sections, 2 cores).
    return np.einsum("ij,j->i", rows, unit).astype(np.float32, copy=False)


# -- quantisation and saving ----------------------------------------------------------------


def quantize_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 per row: ``row ≈ q * scale`` with ``scale = max|row| / 127``."""
    matrix = np.asarray(matrix, dtype=np.float32)
    peak = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix), np.float32)
    scales = (peak / np.float32(127.0)).astype(np.float32)
    safe = np.where(scales > 0, scales, np.float32(1.0))
    q = np.clip(np.rint(matrix / safe[:, None]), -127, 127).astype(np.int8)
    return q, scales


def quantize_sections(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and scales such that ``q * scale`` has unit length (zero rows stay zero)."""
    q, _ = quantize_rows(vectors)
    norms = np.linalg.norm(q.astype(np.float32), axis=1)
    scales = np.where(norms > 0, 1.0 / np.where(norms > 0, norms, 1.0), 0.0).astype(np.float32)
    return q, scales


def save_encoder(encoder: StaticEncoder, directory: str | Path) -> list[Path]:
    """Write the encoder's four files into ``directory`` (created); same input, same bytes."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tokens = encoder.tokenizer.tokens
    for token in tokens:
        if "\n" in token or "\r" in token or token == "":
            raise ValueError(f"token {token!r} cannot be written one per line")
    s = encoder.tokenizer.settings
    config = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "dim": encoder.dim,
        "vocab_size": len(tokens),
        "pooling": "mean",
        "normalize": True,
        "max_tokens": encoder.max_tokens,
        "max_chars": encoder.max_chars,
        "tokenizer": {
            "unk_token": s.unk_token,
            "continuing_subword_prefix": s.continuing_subword_prefix,
            "max_input_chars_per_word": s.max_input_chars_per_word,
            "clean_text": s.clean_text,
            "handle_chinese_chars": s.handle_chinese_chars,
            "strip_accents": s.strip_accents,
            "lowercase": s.lowercase,
            "special_tokens": list(encoder.tokenizer.special_tokens),
        },
        "model": encoder.metadata,
    }
    paths = [directory / name for name in ENCODER_FILES]
    paths[0].write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths[1].write_text("".join(f"{t}\n" for t in tokens), encoding="utf-8", newline="\n")
    _save_array(paths[2], encoder.vectors, np.int8)
    _save_array(paths[3], encoder.scales, np.float32)
    return paths


def save_section_vectors(
    directory: str | Path, vectors: np.ndarray, scales: np.ndarray
) -> list[Path]:
    """Write int8 section vectors and their scales (from `quantize_sections`)."""
    if vectors.dtype != np.int8 or vectors.ndim != 2 or scales.shape != (vectors.shape[0],):
        raise ValueError("section vectors must be int8 (n, dim) with scales (n,)")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / name for name in SECTION_FILES]
    _save_array(paths[0], vectors, np.int8)
    _save_array(paths[1], scales, np.float32)
    return paths


def _save_array(path: Path, array: np.ndarray, dtype: type) -> None:
    # Little-endian, C order, no pickle: the .npy header and data depend only on the values.
    data = np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<"))
    with open(path, "wb") as f:
        np.save(f, data, allow_pickle=False)


def _load_array(path: Path, dtype: type, shape: Iterable[int | None]) -> np.ndarray:
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise SemanticFilesError(path, "missing") from None
    except (OSError, ValueError, EOFError) as err:
        raise SemanticFilesError(path, f"not a readable .npy file ({_reason(err)})") from None
    if not isinstance(array, np.ndarray) or array.dtype != np.dtype(dtype):
        raise SemanticFilesError(path, f"expected {np.dtype(dtype)} data, found {array.dtype}")
    expected = tuple(shape)
    if array.ndim != len(expected) or any(
        want is not None and got != want for got, want in zip(array.shape, expected)
    ):
        wanted = "(" + ", ".join("n" if w is None else str(w) for w in expected) + ")"
        raise SemanticFilesError(path, f"shape {array.shape}, expected {wanted}")
    return array


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SemanticFilesError(path, "missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SemanticFilesError(path, f"not readable JSON ({_reason(err)})") from None
    if not isinstance(data, dict):
        raise SemanticFilesError(path, "not a JSON object")
    return data


def _reason(err: BaseException) -> str:
    return getattr(err, "strerror", None) or str(err) or type(err).__name__
