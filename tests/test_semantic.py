"""The numpy-only query encoder and section vectors, on a hand-made model."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from docwheel.errors import IndexLoadError, SemanticFilesError
from docwheel.semantic import (
    ENCODER_FILES,
    SECTION_FILES,
    SectionVectors,
    StaticEncoder,
    quantize_rows,
    quantize_sections,
    save_encoder,
    save_section_vectors,
)
from docwheel.wordpiece import WordPiece

VOCAB = ["[PAD]", "[UNK]", "hello", "world", "cat", "dog", "##s", "the", "."]
FLOATS = np.array(
    [
        [0.0, 0.0, 0.0, 0.0],
        [9.0, 9.0, 9.0, 9.0],  # [UNK]: never averaged in
        [1.0, 0.0, 0.0, 0.2],
        [0.0, 1.0, 0.0, -0.1],
        [0.0, 0.0, 1.0, 0.3],
        [0.1, 0.0, 0.9, 0.4],
        [0.0, 0.05, 0.0, -0.01],
        [0.01, 0.01, 0.01, 0.01],
        [0.3, -0.3, 0.1, 0.0],
    ],
    dtype=np.float32,
)


def make_encoder(max_tokens: int | None = 512, max_chars: int | None = None) -> StaticEncoder:
    tokenizer = WordPiece(VOCAB, special_tokens=["[PAD]", "[UNK]"])
    vectors, scales = quantize_rows(FLOATS)
    return StaticEncoder(
        tokenizer,
        vectors,
        scales,
        max_tokens=max_tokens,
        max_chars=max_chars,
        metadata={"name": "hand-made", "licence": "CC0-1.0"},
    )


def reference(tokens: list[str]) -> np.ndarray:
    """What model2vec computes: the mean of the float vectors, unit length."""
    mean = FLOATS[[VOCAB.index(t) for t in tokens]].mean(axis=0)
    return mean / np.linalg.norm(mean)


@pytest.fixture
def encoder_dir(tmp_path: Path) -> Path:
    save_encoder(make_encoder(max_tokens=4, max_chars=40), tmp_path / "enc")
    return tmp_path / "enc"


def test_encode_is_the_unit_mean_of_token_vectors() -> None:
    out = make_encoder().encode(["Hello world", "cats and dogs.", "THE cat"])
    assert out.dtype == np.float32 and out.shape == (3, 4)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    assert np.allclose(out[0], reference(["hello", "world"]), atol=0.01)
    # "and" is unknown: dropped, not averaged in.
    assert np.allclose(out[1], reference(["cat", "##s", "dog", "##s", "."]), atol=0.01)
    assert np.allclose(out[2], reference(["the", "cat"]), atol=0.01)


def test_one_string_gives_one_row() -> None:
    assert make_encoder().encode("hello").shape == (1, 4)


def test_empty_or_all_unknown_text_is_the_zero_vector() -> None:
    out = make_encoder().encode(["", "zebra quagga", "   "])
    assert not out.any()


def test_tokens_are_cut_before_unknown_ones_are_dropped() -> None:
    enc = make_encoder(max_tokens=3)
    assert enc.token_ids("hello world cat dog") == [2, 3, 4]
    # The unknown word takes one of the three places, as in model2vec.
    assert enc.token_ids("zebra hello world cat") == [2, 3]
    assert np.array_equal(enc.encode("hello world cat dog"), enc.encode("hello world cat"))


def test_text_is_cut_to_max_chars_first() -> None:
    enc = make_encoder(max_chars=11)
    assert enc.token_ids("hello world cat") == [2, 3]
    # Cut mid-word, as model2vec does: "worldcat" is unknown whole, "world" is known.
    assert enc.token_ids("hello worldcat") == [2, 3]
    assert make_encoder().token_ids("hello worldcat") == [2]


def test_special_tokens_in_text_are_kept_and_unknown_dropped() -> None:
    assert make_encoder().token_ids("hello [PAD] [UNK] world") == [2, 0, 3]


def test_save_and_load_round_trip(encoder_dir: Path) -> None:
    loaded = StaticEncoder.load(encoder_dir)
    original = make_encoder(max_tokens=4, max_chars=40)
    texts = ["hello world", "cats and dogs", "the the the cat dog hello world"]
    assert np.array_equal(loaded.encode(texts), original.encode(texts))
    assert loaded.metadata == {"name": "hand-made", "licence": "CC0-1.0"}
    assert (loaded.max_tokens, loaded.max_chars, loaded.dim) == (4, 40, 4)
    config = json.loads((encoder_dir / "encoder.json").read_text())
    assert config["vocab_size"] == len(VOCAB) and config["pooling"] == "mean"


def test_saving_twice_gives_identical_bytes(tmp_path: Path) -> None:
    for name in ("a", "b"):
        save_encoder(make_encoder(), tmp_path / name)
        vectors, scales = quantize_sections(make_encoder().encode(["hello", "cat dog", ""]))
        save_section_vectors(tmp_path / name, vectors, scales)
    for name in ENCODER_FILES + SECTION_FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_section_cosine_matches_float_cosine(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    floats = rng.normal(size=(50, 16)).astype(np.float32)
    floats[7] = 0.0
    save_section_vectors(tmp_path, *quantize_sections(floats))
    sections = SectionVectors.load(tmp_path)
    assert isinstance(sections.vectors, np.memmap) and len(sections) == 50
    query = rng.normal(size=16).astype(np.float32)
    expected = (floats @ query) / (np.linalg.norm(floats, axis=1) + 1e-30) / np.linalg.norm(query)
    got = sections.cosine(query * 3.0)
    assert got.dtype == np.float32 and got.shape == (50,)
    assert np.allclose(got, expected, atol=0.02)
    assert got[7] == 0.0
    assert np.array_equal(np.argsort(-got)[:3], np.argsort(-expected)[:3])
    assert not sections.cosine(np.zeros(16)).any()
    with pytest.raises(ValueError, match="dimensions"):
        sections.cosine(np.ones(8))


def test_large_section_sets_are_scored_block_by_block_with_the_same_numbers(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    floats = rng.normal(size=(20_000, 16)).astype(np.float32)
    save_section_vectors(tmp_path, *quantize_sections(floats))
    kept = SectionVectors.load(tmp_path)
    loaded = SectionVectors.load(tmp_path)
    blockwise = SectionVectors(loaded.vectors, loaded.scales, dense_bytes=0)
    for _ in range(3):
        query = rng.normal(size=16).astype(np.float32)
        assert np.array_equal(blockwise.cosine(query), kept.cosine(query))
    assert kept._dense is not None and blockwise._dense is None  # no float copy is kept


def test_no_sections_cosine_is_empty(tmp_path: Path) -> None:
    save_section_vectors(tmp_path, *quantize_sections(np.zeros((0, 4), np.float32)))
    assert SectionVectors.load(tmp_path).cosine(np.ones(4)).shape == (0,)


@pytest.mark.parametrize("name", ENCODER_FILES)
def test_missing_encoder_file_is_named(encoder_dir: Path, name: str) -> None:
    (encoder_dir / name).unlink()
    with pytest.raises(SemanticFilesError, match=name) as caught:
        StaticEncoder.load(encoder_dir)
    assert isinstance(caught.value, IndexLoadError)
    assert caught.value.path.endswith(name)


@pytest.mark.parametrize("name", SECTION_FILES)
def test_missing_section_file_is_named(tmp_path: Path, name: str) -> None:
    save_section_vectors(tmp_path, *quantize_sections(np.ones((3, 4), np.float32)))
    (tmp_path / name).unlink()
    with pytest.raises(SemanticFilesError, match=f"{name}: missing"):
        SectionVectors.load(tmp_path)


@pytest.mark.parametrize(
    ("name", "damage", "message"),
    [
        ("token_vectors.npy", lambda p: p.write_bytes(p.read_bytes()[:100]), "not a readable"),
        ("token_vectors.npy", lambda p: p.write_bytes(b"garbage"), "not a readable"),
        ("token_vectors.npy", lambda p: np.save(p, np.zeros((9, 4), np.float32)), "int8"),
        ("token_vectors.npy", lambda p: np.save(p, np.zeros((9, 3), np.int8)), "shape"),
        ("token_scales.npy", lambda p: np.save(p, np.zeros(8, np.float32)), "shape"),
        ("token_scales.npy", lambda p: np.save(p, np.full(9, np.nan, np.float32)), "finite"),
        ("encoder.json", lambda p: p.write_text("{"), "JSON"),
        ("encoder.json", lambda p: p.write_text("{}"), "invalid encoder settings"),
        ("vocab.txt", lambda p: p.write_text("a\nb\n"), "2 tokens, expected 9"),
        ("vocab.txt", lambda p: p.write_bytes(b"\xff\xfe"), "vocab.txt"),
    ],
)
def test_corrupt_encoder_file_is_named(encoder_dir: Path, name, damage, message) -> None:
    damage(encoder_dir / name)
    with pytest.raises(SemanticFilesError, match=message) as caught:
        StaticEncoder.load(encoder_dir)
    assert name in str(caught.value)


def test_other_format_is_refused(encoder_dir: Path) -> None:
    path = encoder_dir / "encoder.json"
    config = json.loads(path.read_text())
    path.write_text(json.dumps({**config, "format_version": 99}))
    with pytest.raises(SemanticFilesError, match="version 1"):
        StaticEncoder.load(encoder_dir)


def test_encoding_needs_no_torch_transformers_tokenizers_or_model2vec(encoder_dir: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        BLOCKED = ("torch", "transformers", "tokenizers", "model2vec", "sentence_transformers")

        class Blocker:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ImportError(f"{{name}} is blocked in this test")
                return None

        sys.meta_path.insert(0, Blocker())
        import docwheel.semantic as semantic

        encoder = semantic.StaticEncoder.load({str(encoder_dir)!r})
        vector = encoder.encode(["hello world"])[0]
        vectors, scales = semantic.quantize_sections(encoder.encode(["cat", "hello"]))
        semantic.save_section_vectors({str(encoder_dir / "sections")!r}, vectors, scales)
        cosine = semantic.SectionVectors.load({str(encoder_dir / "sections")!r}).cosine(vector)
        assert cosine[1] > cosine[0], cosine
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
        assert not loaded, loaded
        assert "docwheel.distill" not in sys.modules
        print("ok", round(float(cosine[1]), 3))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")
