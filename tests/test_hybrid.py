"""Hybrid search: word scores and meaning mixed, on an index given a hand-made encoder.

The encoder's vocabulary maps words to three topics (retries, installing, webhooks), so
"meaning" is known exactly: a query in words the docs never use still lands on its topic.
Distilling a real model is tested in test_distill.py (slow).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import FIXTURES, write_config

import docwheel
from docwheel.build import build_from_file
from docwheel.fusion import SEMANTIC_WEIGHT, corrected_query, fuse, meaning_weight
from docwheel.semantic import StaticEncoder, quantize_rows, quantize_sections, save_encoder, save_section_vectors
from docwheel.index import section_texts
from docwheel.wordpiece import WordPiece

TOPICS = {
    0: "retries retry retried again backoff back off attempts jitter budget resend",
    1: "install installing pip python package setup",
    2: "webhook webhooks signature signatures hmac verify deliveries tamper forged",
}


def topic_encoder() -> StaticEncoder:
    words = [w for text in TOPICS.values() for w in text.split()]
    vocab = ["[PAD]", "[UNK]", *words]
    rows = np.zeros((len(vocab), 4), dtype=np.float32)
    for topic, text in TOPICS.items():
        for word in text.split():
            rows[vocab.index(word), topic] = 1.0
            rows[vocab.index(word), 3] = 0.1  # a little shared meaning, as real models have
    vectors, scales = quantize_rows(rows)
    tokenizer = WordPiece(vocab, special_tokens=["[PAD]", "[UNK]"])
    return StaticEncoder(tokenizer, vectors, scales, metadata={"name": "topics", "licence": "CC0-1.0"})


@pytest.fixture(scope="module")
def hybrid_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("hybrid")
    config = write_config(
        root,
        f"name: topics\nsources:\n  - name: client\n    kind: markdown\n"
        f"    path: {FIXTURES / 'versions' / '2.0'}\n  - name: hooks\n    kind: markdown\n"
        f"    path: {FIXTURES / 'other'}\n",
    )
    out = root / "index"
    build_from_file(config, out)
    lexical = root / "lexical"
    build_from_file(config, lexical)
    encoder = topic_encoder()
    save_encoder(encoder, out)
    vectors, scales = quantize_sections(encoder.encode(section_texts(out)))
    save_section_vectors(out, vectors, scales)
    return out, lexical


def test_meaning_finds_a_page_whose_words_the_query_does_not_use(hybrid_dir):
    hybrid, _ = hybrid_dir
    with docwheel.open_index(hybrid) as index:
        meaning = index.search("spot tamper forged", limit=3)
        words = index.search("spot tamper forged", limit=3, mode="lexical")
    assert meaning.results[0].ref.partition("#")[0] == "hooks:webhooks"
    assert words.results == ()


def test_hybrid_is_the_default_only_where_the_index_has_vectors(hybrid_dir):
    hybrid, lexical = hybrid_dir
    with docwheel.open_index(hybrid) as index:
        explained = index.search("configure retries", explain=True).results[0].explain
    assert set(explained["hybrid"]) == {"semantic_weight", "lexical", "semantic", "cosine", "score"}
    with docwheel.open_index(lexical) as index:
        plain = index.search("configure retries", explain=True)
        asked = index.search("configure retries", mode="hybrid")
    assert "hybrid" not in plain.results[0].explain
    assert asked.warnings == ("these docs have no semantic vectors; searched by words only",)


def test_operator_queries_stay_lexical(hybrid_dir):
    hybrid, _ = hybrid_dir
    with docwheel.open_index(hybrid) as index:
        found = index.search('"retry budget" OR tamper', explain=True, limit=5)
    assert found.results and all("hybrid" not in hit.explain for hit in found.results)
    assert {hit.ref.partition("#")[0] for hit in found.results} == {"client:retries"}


def test_an_unknown_mode_is_a_clear_error(hybrid_dir):
    with docwheel.open_index(hybrid_dir[0]) as index, pytest.raises(
        docwheel.errors.QueryError, match="mode must be one of hybrid, lexical, got 'fuzzy'"
    ):
        index.search("retries", mode="fuzzy")


def test_fuse_mixes_scaled_scores_over_the_candidates():
    lexical = np.array([4.0, 2.0, 0.0, 0.0, 0.0])
    cosine = np.array([0.2, 0.6, 0.9, 0.1, -0.3])
    fused = fuse(lexical, cosine, covered=0.5, weight=0.5, full_missing=0.25, candidates=2)
    assert fused.weight == 0.5
    # Candidates: the two word matches and the two nearest in meaning (sections 2 and 1).
    assert fused.scores[3] == 0 and fused.scores[4] == 0
    assert fused.lexical.tolist() == [1.0, 0.5, 0.0, 0.0, 0.0]
    assert fused.semantic[2] == pytest.approx(1.0) and fused.semantic[0] == pytest.approx(0.0)
    assert fused.scores[1] == pytest.approx(0.5 * 0.5 + 0.5 * (0.6 - 0.2) / 0.7)
    assert np.argmax(fused.scores) == 1  # good at both beats best at one


def test_fuse_with_nothing_matched_gives_no_candidates():
    fused = fuse(np.zeros(3), np.array([-0.1, -0.2, 0.0]), covered=0.0, candidates=2)
    assert not fused.scores.any()


def test_cli_explain_of_a_hybrid_hit_shows_the_word_score_it_was_mixed_from(hybrid_dir, capsys):
    from docwheel.cli import main

    hybrid, _ = hybrid_dir
    with docwheel.open_index(hybrid) as index:
        words = index.search("configure retries", mode="lexical", limit=1).results[0]
    assert main(["search", "configure retries", "--explain", "--limit", "1", "--index", str(hybrid)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3] == "   type: guide"
    assert lines[5].startswith("   hybrid ")
    shown = lines[6].removeprefix("   words: score ").split(" = (section ")
    assert len(shown) == 2 and float(shown[0]) == pytest.approx(words.score, abs=0.01)


def test_meaning_weighs_in_proportion_to_the_share_of_the_query_the_words_lack():
    assert meaning_weight(1.0, weight=0.5, full_missing=0.25) == 0.0
    assert meaning_weight(4 / 4, weight=0.5, full_missing=0.25) == 0.0
    assert meaning_weight(0.9, weight=0.5, full_missing=0.25) == pytest.approx(0.2)
    assert meaning_weight(0.75, weight=0.5, full_missing=0.25) == pytest.approx(0.5)
    assert meaning_weight(0.0, weight=0.5, full_missing=0.25) == 0.5  # no word matched
    assert meaning_weight(0.99, weight=0.5, full_missing=0.0) == 0.5  # 0: any word lacking


def test_fuse_keeps_the_word_order_when_meaning_has_no_weight():
    lexical = np.array([3.0, 2.0, 1.0, 0.0, 0.0])
    cosine = np.array([0.1, 0.5, 0.9, 0.8, 0.3])
    fused = fuse(lexical, cosine, covered=1.0, candidates=5)
    assert fused.weight == 0.0
    # Word matches in word order; the sections only meaning found below them, nearest first.
    assert np.argsort(-fused.scores).tolist() == [0, 1, 2, 3, 4]
    assert fused.scores[4] > 0


def test_the_encoder_reads_the_query_with_its_corrected_words():
    fixes = [("webstrom", "webstorm"), ("insted", "instead")]
    typed = "webstrom: shows insted, not instedx"
    assert corrected_query(typed, fixes) == "webstorm: shows instead, not instedx"
    assert corrected_query("a.b c", [("a.b", "ab")]) == "ab c"


# Three pages on the encoder's topics; 'flags' is no word the encoder knows, so the meaning of
# "jitter flags" is retries (the backoff page, 'jitter' in its title) while only the flags page
# holds both words. Mixed at one weight for every query, meaning put the backoff page first.
MEANING_PAGES = {
    "flags.md": "# Install flags\n\nPass jitter flags to pip when you install the python package: "
    "setup reads them.\n",
    "backoff.md": "# Jitter backoff\n\nRetries back off with jitter: each retry waits longer, and "
    "attempts stop once the budget is spent.\n",
    "hooks.md": "# Webhooks\n\nVerify the signature of webhook deliveries: an HMAC shows a forged "
    "body, or one a proxy may tamper with.\n",
}


@pytest.fixture(scope="module")
def meaning_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("meaning")
    docs = root / "docs"
    docs.mkdir()
    for name, text in MEANING_PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    config = write_config(
        root, f"name: meaning\nsources:\n  - name: docs\n    kind: markdown\n    path: {docs}\n"
    )
    out = root / "index"
    build_from_file(config, out)
    encoder = topic_encoder()
    save_encoder(encoder, out)
    vectors, scales = quantize_sections(encoder.encode(section_texts(out)))
    save_section_vectors(out, vectors, scales)
    return out


def test_words_decide_when_the_best_word_match_holds_every_word_of_the_query(meaning_dir):
    with docwheel.open_index(meaning_dir) as index:
        hybrid = index.search("jitter flags", explain=True)
        words = index.search("jitter flags", mode="lexical")
    cosine = {hit.ref: hit.explain["hybrid"]["cosine"] for hit in hybrid.results}
    assert cosine["docs:backoff"] > cosine["docs:flags"]  # meaning points elsewhere
    order = [hit.ref for hit in words.results]
    assert order == ["docs:flags", "docs:backoff"]
    assert [hit.ref for hit in hybrid.results][:2] == order  # then the page only meaning found
    assert {hit.explain["hybrid"]["semantic_weight"] for hit in hybrid.results} == {0.0}


def test_meaning_weighs_where_the_words_fall_short(meaning_dir):
    with docwheel.open_index(meaning_dir) as index:
        # The best word match (flags) holds two of the four words: meaning gets its full weight.
        hybrid = index.search("jitter flags forged tamper", explain=True)
        words = index.search("jitter flags forged tamper", mode="lexical")
        # Four of five words: a fifth lacking, less than a quarter, weighs proportionally less.
        partly = index.search("jitter flags pip install forged", explain=True)
    assert words.results[0].ref == "docs:flags"
    assert hybrid.results[0].ref == "docs:hooks"
    assert hybrid.results[0].explain["hybrid"]["semantic_weight"] == SEMANTIC_WEIGHT
    assert partly.results[0].explain["hybrid"]["semantic_weight"] == pytest.approx(meaning_weight(0.8))
    assert 0 < meaning_weight(0.8) < SEMANTIC_WEIGHT


def test_meaning_reads_the_typo_corrected_query(meaning_dir):
    with docwheel.open_index(meaning_dir) as index:
        found = index.search("tampr spot", explain=True)
    assert "searched for 'tamper' instead of 'tampr'" in found.warnings
    top = found.results[0]
    # Neither 'tampr' nor 'spot' is a word the encoder knows: only the correction has a meaning.
    assert top.ref == "docs:hooks" and top.explain["hybrid"]["cosine"] > 0.9
    assert top.explain["hybrid"]["semantic_weight"] == SEMANTIC_WEIGHT
