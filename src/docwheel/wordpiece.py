"""A BERT WordPiece tokenizer in plain Python, for encoding queries at run time.

It reproduces, id for id, what the `tokenizers` package does with a BERT-style
``tokenizer.json`` (BertNormalizer, BertPreTokenizer, WordPiece model, special tokens matched
in the raw text), so the query side of the semantic layer needs neither that package nor
anything else beyond the standard library. The parity is tested against `tokenizers` on
thousands of real documentation texts and, character by character, on every code point.

The steps, in the order `tokenizers` runs them:

1. Special tokens (``[PAD]``, ``[UNK]``, …) are cut out of the raw text, longest first.
2. Normalisation, per character: control and format characters, NUL and U+FFFD are dropped
   and whitespace becomes a space; CJK ideographs get a space on each side; accents are
   stripped (NFD, then non-spacing marks removed); every character is lowercased on its own.
3. Pre-tokenisation: split at whitespace (dropped) and around each punctuation character.
4. WordPiece: greedy longest match first, continuations prefixed ``##``; a word longer than
   ``max_input_chars_per_word`` characters, or one that cannot be covered, is one ``[UNK]``.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["WordPiece", "WordPieceSettings"]


@dataclass(frozen=True)
class WordPieceSettings:
    """The knobs of a BERT tokenizer, as `tokenizer.json` names them."""

    unk_token: str = "[UNK]"
    continuing_subword_prefix: str = "##"
    max_input_chars_per_word: int = 100
    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool = True
    lowercase: bool = True


# The CJK blocks `tokenizers` (and Google's BERT) pad with spaces.
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)

# Rust's `char::is_whitespace` (the Unicode White_Space property). Python's str.isspace()
# differs on U+001C..U+001F (which it counts as whitespace) and nothing else.
_WHITESPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


class WordPiece:
    """Token ids for text, from a vocabulary (token ``i`` has id ``i``) and the settings.

    ``special_tokens`` are matched verbatim in the raw text before anything else, as
    `tokenizers` does with its added tokens; each must also be in ``vocab``.
    """

    def __init__(
        self,
        vocab: Sequence[str],
        settings: WordPieceSettings = WordPieceSettings(),
        special_tokens: Iterable[str] = (),
    ):
        self.tokens: tuple[str, ...] = tuple(vocab)
        self.vocab: dict[str, int] = {}
        for i, token in enumerate(self.tokens):
            if token in self.vocab:
                raise ValueError(f"token {token!r} appears twice in the vocabulary")
            self.vocab[token] = i
        self.settings = settings
        if settings.unk_token not in self.vocab:
            raise ValueError(f"the unknown token {settings.unk_token!r} is not in the vocabulary")
        self.unk_id = self.vocab[settings.unk_token]
        self.special_tokens = tuple(special_tokens)
        for token in self.special_tokens:
            if token not in self.vocab:
                raise ValueError(f"special token {token!r} is not in the vocabulary")
        self._special = (
            re.compile(
                "|".join(re.escape(t) for t in sorted(self.special_tokens, key=len, reverse=True))
            )
            if self.special_tokens
            else None
        )
        self._longest = max((len(t) for t in self.vocab), default=1)
        self._char_cache: dict[str, str] = {}

    @classmethod
    def from_tokenizer_json(cls, data: Mapping) -> WordPiece:
        """Build from a parsed ``tokenizer.json``; refuse what this class does not reproduce."""
        model = data.get("model") or {}
        if model.get("type") != "WordPiece":
            raise ValueError(f"not a WordPiece tokenizer: model type {model.get('type')!r}")
        normalizer = data.get("normalizer") or {}
        if normalizer.get("type") != "BertNormalizer":
            raise ValueError(f"unsupported normalizer {normalizer.get('type')!r}")
        pre = data.get("pre_tokenizer") or {}
        if pre.get("type") != "BertPreTokenizer":
            raise ValueError(f"unsupported pre-tokenizer {pre.get('type')!r}")
        vocab_map: Mapping[str, int] = model["vocab"]
        vocab = [""] * len(vocab_map)
        for token, i in vocab_map.items():
            if not 0 <= i < len(vocab) or vocab[i]:
                raise ValueError("vocabulary ids are not 0..n-1, each once")
            vocab[i] = token
        specials = []
        for added in data.get("added_tokens") or []:
            if any(added.get(k) for k in ("normalized", "lstrip", "rstrip", "single_word")):
                raise ValueError(f"unsupported added token options for {added['content']!r}")
            if vocab_map.get(added["content"]) != added["id"]:
                raise ValueError(f"added token {added['content']!r} is not in the vocabulary")
            specials.append(added["content"])
        lowercase = bool(normalizer.get("lowercase", True))
        strip = normalizer.get("strip_accents")
        settings = WordPieceSettings(
            unk_token=model.get("unk_token", "[UNK]"),
            continuing_subword_prefix=model.get("continuing_subword_prefix", "##"),
            max_input_chars_per_word=int(model.get("max_input_chars_per_word", 100)),
            clean_text=bool(normalizer.get("clean_text", True)),
            handle_chinese_chars=bool(normalizer.get("handle_chinese_chars", True)),
            # As in `tokenizers`: no explicit setting means "strip when lowercasing".
            strip_accents=lowercase if strip is None else bool(strip),
            lowercase=lowercase,
        )
        return cls(vocab, settings, specials)

    # -- normalisation -------------------------------------------------------------------

    def _clean_char(self, ch: str) -> str:
        s = self.settings
        if s.clean_text:
            if ch in "\t\n\r":
                return " "
            if ch == "\x00" or ch == "\ufffd" or _is_other(ch):
                return ""
            if ch in _WHITESPACE:
                return " "
        if s.handle_chinese_chars and _is_cjk(ord(ch)):
            return f" {ch} "
        return ch

    def normalize(self, text: str) -> str:
        """The text as the BertNormalizer leaves it."""
        s = self.settings
        cache = self._char_cache
        out = []
        for ch in text:
            cleaned = cache.get(ch)
            if cleaned is None:
                cleaned = cache[ch] = self._clean_char(ch)
            out.append(cleaned)
        text = "".join(out)
        if text.isascii():
            return text.lower() if s.lowercase else text
        if s.strip_accents:
            # NFD over the whole text, as `tokenizers` does: combining marks get reordered.
            text = "".join(c for c in _nfd(text) if not _is_nonspacing(c))
        if s.lowercase:
            text = "".join(_lower(c) for c in text)
        return text

    # -- pre-tokenisation and WordPiece ----------------------------------------------------

    @staticmethod
    def pre_tokenize(normalized: str) -> list[str]:
        """Words and single punctuation characters, whitespace dropped."""
        words: list[str] = []
        current: list[str] = []
        for ch in normalized:
            if ch in _WHITESPACE:
                if current:
                    words.append("".join(current))
                    current = []
            elif _is_punctuation(ch):
                if current:
                    words.append("".join(current))
                    current = []
                words.append(ch)
            else:
                current.append(ch)
        if current:
            words.append("".join(current))
        return words

    def _word_ids(self, word: str) -> list[int]:
        s = self.settings
        if len(word) > s.max_input_chars_per_word:
            return [self.unk_id]
        vocab = self.vocab
        prefix = s.continuing_subword_prefix
        ids = []
        start = 0
        n = len(word)
        while start < n:
            end = min(n, start + self._longest)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [self.unk_id]
            ids.append(found)
            start = end
        return ids

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text``, without [CLS]/[SEP] (``add_special_tokens=False``)."""
        ids: list[int] = []
        pos = 0
        if self._special is not None:
            for match in self._special.finditer(text):
                self._encode_plain(text[pos : match.start()], ids)
                ids.append(self.vocab[match.group()])
                pos = match.end()
        self._encode_plain(text[pos:], ids)
        return ids

    def _encode_plain(self, text: str, ids: list[int]) -> None:
        if text:
            for word in self.pre_tokenize(self.normalize(text)):
                ids.extend(self._word_ids(word))

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text`` as strings (for reading and debugging)."""
        return [self.tokens[i] for i in self.encode(text)]


# -- character classes, as the Rust crates behind `tokenizers` see them ------------------------
#
# `tokenizers` takes these from the `unicode_categories` crate, whose tables are older than
# the Unicode data of any Python we support (and Python's differ between 3.10 and 3.13), so
# they are pinned here as inclusive code point ranges, generated by probing `tokenizers` 0.22
# with every code point. tests/test_wordpiece.py re-checks them all when `tokenizers` is
# installed. NFD and lowercasing still come from Python: they agree on every character
# that the Rust crates know (checked by the same test).


def _ranges(*bounds: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return bounds[0::2], bounds[1::2]


def _in(table: tuple[tuple[int, ...], tuple[int, ...]], ch: str) -> bool:
    starts, ends = table
    cp = ord(ch)
    i = bisect_right(starts, cp) - 1
    return i >= 0 and cp <= ends[i]


def _is_other(ch: str) -> bool:
    return _in(_OTHER, ch)


def _is_punctuation(ch: str) -> bool:
    return _in(_PUNCT, ch)


def _is_nonspacing(ch: str) -> bool:
    return _in(_NONSPACING, ch)


def _nfd(text: str) -> str:
    if not any(ch in _NFD_KEEP for ch in text):
        return unicodedata.normalize("NFD", text)
    # A kept character is a starter (combining class 0), so decomposing around it is exact.
    parts = re.split(f"([{''.join(_NFD_KEEP)}])", text)
    return "".join(p if p in _NFD_KEEP else unicodedata.normalize("NFD", p) for p in parts)


def _lower(ch: str) -> str:
    return _LOWER_EXTRA.get(ch) or ch.lower()


# Newer than Python 3.10's Unicode 13 but known to Rust's `to_lowercase`: (first, last, shift).
_LOWER_EXTRA = {
    chr(cp): chr(cp + shift)
    for first, last, shift in (
        (0x1C89, 0x1C89, 1), (0x2C2F, 0x2C2F, 48), (0xA7C0, 0xA7C0, 1), (0xA7CB, 0xA7CB, -42343),
        (0xA7CC, 0xA7CC, 1), (0xA7CE, 0xA7CE, 1), (0xA7D0, 0xA7D0, 1), (0xA7D2, 0xA7D2, 1),
        (0xA7D4, 0xA7D4, 1), (0xA7D6, 0xA7D6, 1), (0xA7D8, 0xA7D8, 1), (0xA7DA, 0xA7DA, 1),
        (0xA7DC, 0xA7DC, -42561), (0x10570, 0x1057A, 39), (0x1057C, 0x1058A, 39),
        (0x1058C, 0x10592, 39), (0x10594, 0x10595, 39), (0x10D50, 0x10D65, 32),
        (0x16EA0, 0x16EB8, 27),
    )
    for cp in range(first, last + 1)
}
# Decomposed by Python's NFD but not by the Rust crate's older tables.
_NFD_KEEP = frozenset({"\U00011938"})


# Removed by clean_text: Rust `is_other` (Cc, Cf, Co in the crate's Unicode version).
_OTHER = _ranges(
    0x1, 0x8, 0xB, 0xC, 0xE, 0x1F, 0x7F, 0x9F, 0xAD, 0xAD, 0x600, 0x605, 0x61C, 0x61C, 0x6DD,
    0x6DD, 0x70F, 0x70F, 0x180E, 0x180E, 0x200B, 0x200F, 0x202A, 0x202E, 0x2060, 0x2064, 0x2066,
    0x206F, 0xE000, 0xF8FF, 0xFEFF, 0xFEFF, 0xFFF9, 0xFFFB, 0x110BD, 0x110BD, 0x1BCA0, 0x1BCA3,
    0x1D173, 0x1D17A, 0xE0001, 0xE0001, 0xE0020, 0xE007F, 0xF0000, 0xFFFFD, 0x100000, 0x10FFFD,
)

# Split off as punctuation: ASCII punctuation and Rust `is_punctuation` (P*).
_PUNCT = _ranges(
    0x21, 0x2F, 0x3A, 0x40, 0x5B, 0x60, 0x7B, 0x7E, 0xA1, 0xA1, 0xA7, 0xA7, 0xAB, 0xAB, 0xB6,
    0xB7, 0xBB, 0xBB, 0xBF, 0xBF, 0x37E, 0x37E, 0x387, 0x387, 0x55A, 0x55F, 0x589, 0x58A, 0x5BE,
    0x5BE, 0x5C0, 0x5C0, 0x5C3, 0x5C3, 0x5C6, 0x5C6, 0x5F3, 0x5F4, 0x609, 0x60A, 0x60C, 0x60D,
    0x61B, 0x61B, 0x61E, 0x61F, 0x66A, 0x66D, 0x6D4, 0x6D4, 0x700, 0x70D, 0x7F7, 0x7F9, 0x830,
    0x83E, 0x85E, 0x85E, 0x964, 0x965, 0x970, 0x970, 0xAF0, 0xAF0, 0xDF4, 0xDF4, 0xE4F, 0xE4F,
    0xE5A, 0xE5B, 0xF04, 0xF12, 0xF14, 0xF14, 0xF3A, 0xF3D, 0xF85, 0xF85, 0xFD0, 0xFD4, 0xFD9,
    0xFDA, 0x104A, 0x104F, 0x10FB, 0x10FB, 0x1360, 0x1368, 0x1400, 0x1400, 0x166D, 0x166E,
    0x169B, 0x169C, 0x16EB, 0x16ED, 0x1735, 0x1736, 0x17D4, 0x17D6, 0x17D8, 0x17DA, 0x1800,
    0x180A, 0x1944, 0x1945, 0x1A1E, 0x1A1F, 0x1AA0, 0x1AA6, 0x1AA8, 0x1AAD, 0x1B5A, 0x1B60,
    0x1BFC, 0x1BFF, 0x1C3B, 0x1C3F, 0x1C7E, 0x1C7F, 0x1CC0, 0x1CC7, 0x1CD3, 0x1CD3, 0x2010,
    0x2027, 0x2030, 0x2043, 0x2045, 0x2051, 0x2053, 0x205E, 0x207D, 0x207E, 0x208D, 0x208E,
    0x2308, 0x230B, 0x2329, 0x232A, 0x2768, 0x2775, 0x27C5, 0x27C6, 0x27E6, 0x27EF, 0x2983,
    0x2998, 0x29D8, 0x29DB, 0x29FC, 0x29FD, 0x2CF9, 0x2CFC, 0x2CFE, 0x2CFF, 0x2D70, 0x2D70,
    0x2E00, 0x2E2E, 0x2E30, 0x2E42, 0x3001, 0x3003, 0x3008, 0x3011, 0x3014, 0x301F, 0x3030,
    0x3030, 0x303D, 0x303D, 0x30A0, 0x30A0, 0x30FB, 0x30FB, 0xA4FE, 0xA4FF, 0xA60D, 0xA60F,
    0xA673, 0xA673, 0xA67E, 0xA67E, 0xA6F2, 0xA6F7, 0xA874, 0xA877, 0xA8CE, 0xA8CF, 0xA8F8,
    0xA8FA, 0xA8FC, 0xA8FC, 0xA92E, 0xA92F, 0xA95F, 0xA95F, 0xA9C1, 0xA9CD, 0xA9DE, 0xA9DF,
    0xAA5C, 0xAA5F, 0xAADE, 0xAADF, 0xAAF0, 0xAAF1, 0xABEB, 0xABEB, 0xFD3E, 0xFD3F, 0xFE10,
    0xFE19, 0xFE30, 0xFE52, 0xFE54, 0xFE61, 0xFE63, 0xFE63, 0xFE68, 0xFE68, 0xFE6A, 0xFE6B,
    0xFF01, 0xFF03, 0xFF05, 0xFF0A, 0xFF0C, 0xFF0F, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF20, 0xFF3B,
    0xFF3D, 0xFF3F, 0xFF3F, 0xFF5B, 0xFF5B, 0xFF5D, 0xFF5D, 0xFF5F, 0xFF65, 0x10100, 0x10102,
    0x1039F, 0x1039F, 0x103D0, 0x103D0, 0x1056F, 0x1056F, 0x10857, 0x10857, 0x1091F, 0x1091F,
    0x1093F, 0x1093F, 0x10A50, 0x10A58, 0x10A7F, 0x10A7F, 0x10AF0, 0x10AF6, 0x10B39, 0x10B3F,
    0x10B99, 0x10B9C, 0x11047, 0x1104D, 0x110BB, 0x110BC, 0x110BE, 0x110C1, 0x11140, 0x11143,
    0x11174, 0x11175, 0x111C5, 0x111C9, 0x111CD, 0x111CD, 0x111DB, 0x111DB, 0x111DD, 0x111DF,
    0x11238, 0x1123D, 0x112A9, 0x112A9, 0x114C6, 0x114C6, 0x115C1, 0x115D7, 0x11641, 0x11643,
    0x1173C, 0x1173E, 0x12470, 0x12474, 0x16A6E, 0x16A6F, 0x16AF5, 0x16AF5, 0x16B37, 0x16B3B,
    0x16B44, 0x16B44, 0x1BC9F, 0x1BC9F, 0x1DA87, 0x1DA8B,
)

# Dropped after NFD: Rust `is_mark_nonspacing` (Mn).
_NONSPACING = _ranges(
    0x300, 0x36F, 0x483, 0x487, 0x591, 0x5BD, 0x5BF, 0x5BF, 0x5C1, 0x5C2, 0x5C4, 0x5C5, 0x5C7,
    0x5C7, 0x610, 0x61A, 0x64B, 0x65F, 0x670, 0x670, 0x6D6, 0x6DC, 0x6DF, 0x6E4, 0x6E7, 0x6E8,
    0x6EA, 0x6ED, 0x711, 0x711, 0x730, 0x74A, 0x7A6, 0x7B0, 0x7EB, 0x7F3, 0x816, 0x819, 0x81B,
    0x823, 0x825, 0x827, 0x829, 0x82D, 0x859, 0x85B, 0x8E3, 0x902, 0x93A, 0x93A, 0x93C, 0x93C,
    0x941, 0x948, 0x94D, 0x94D, 0x951, 0x957, 0x962, 0x963, 0x981, 0x981, 0x9BC, 0x9BC, 0x9C1,
    0x9C4, 0x9CD, 0x9CD, 0x9E2, 0x9E3, 0xA01, 0xA02, 0xA3C, 0xA3C, 0xA41, 0xA42, 0xA47, 0xA48,
    0xA4B, 0xA4D, 0xA51, 0xA51, 0xA70, 0xA71, 0xA75, 0xA75, 0xA81, 0xA82, 0xABC, 0xABC, 0xAC1,
    0xAC5, 0xAC7, 0xAC8, 0xACD, 0xACD, 0xAE2, 0xAE3, 0xB01, 0xB01, 0xB3C, 0xB3C, 0xB3F, 0xB3F,
    0xB41, 0xB44, 0xB4D, 0xB4D, 0xB56, 0xB56, 0xB62, 0xB63, 0xB82, 0xB82, 0xBC0, 0xBC0, 0xBCD,
    0xBCD, 0xC00, 0xC00, 0xC3E, 0xC40, 0xC46, 0xC48, 0xC4A, 0xC4D, 0xC55, 0xC56, 0xC62, 0xC63,
    0xC81, 0xC81, 0xCBC, 0xCBC, 0xCBF, 0xCBF, 0xCC6, 0xCC6, 0xCCC, 0xCCD, 0xCE2, 0xCE3, 0xD01,
    0xD01, 0xD41, 0xD44, 0xD4D, 0xD4D, 0xD62, 0xD63, 0xDCA, 0xDCA, 0xDD2, 0xDD4, 0xDD6, 0xDD6,
    0xE31, 0xE31, 0xE34, 0xE3A, 0xE47, 0xE4E, 0xEB1, 0xEB1, 0xEB4, 0xEB9, 0xEBB, 0xEBC, 0xEC8,
    0xECD, 0xF18, 0xF19, 0xF35, 0xF35, 0xF37, 0xF37, 0xF39, 0xF39, 0xF71, 0xF7E, 0xF80, 0xF84,
    0xF86, 0xF87, 0xF8D, 0xF97, 0xF99, 0xFBC, 0xFC6, 0xFC6, 0x102D, 0x1030, 0x1032, 0x1037,
    0x1039, 0x103A, 0x103D, 0x103E, 0x1058, 0x1059, 0x105E, 0x1060, 0x1071, 0x1074, 0x1082,
    0x1082, 0x1085, 0x1086, 0x108D, 0x108D, 0x109D, 0x109D, 0x135D, 0x135F, 0x1712, 0x1714,
    0x1732, 0x1734, 0x1752, 0x1753, 0x1772, 0x1773, 0x17B4, 0x17B5, 0x17B7, 0x17BD, 0x17C6,
    0x17C6, 0x17C9, 0x17D3, 0x17DD, 0x17DD, 0x180B, 0x180D, 0x18A9, 0x18A9, 0x1920, 0x1922,
    0x1927, 0x1928, 0x1932, 0x1932, 0x1939, 0x193B, 0x1A17, 0x1A18, 0x1A1B, 0x1A1B, 0x1A56,
    0x1A56, 0x1A58, 0x1A5E, 0x1A60, 0x1A60, 0x1A62, 0x1A62, 0x1A65, 0x1A6C, 0x1A73, 0x1A7C,
    0x1A7F, 0x1A7F, 0x1AB0, 0x1ABD, 0x1B00, 0x1B03, 0x1B34, 0x1B34, 0x1B36, 0x1B3A, 0x1B3C,
    0x1B3C, 0x1B42, 0x1B42, 0x1B6B, 0x1B73, 0x1B80, 0x1B81, 0x1BA2, 0x1BA5, 0x1BA8, 0x1BA9,
    0x1BAB, 0x1BAD, 0x1BE6, 0x1BE6, 0x1BE8, 0x1BE9, 0x1BED, 0x1BED, 0x1BEF, 0x1BF1, 0x1C2C,
    0x1C33, 0x1C36, 0x1C37, 0x1CD0, 0x1CD2, 0x1CD4, 0x1CE0, 0x1CE2, 0x1CE8, 0x1CED, 0x1CED,
    0x1CF4, 0x1CF4, 0x1CF8, 0x1CF9, 0x1DC0, 0x1DF5, 0x1DFC, 0x1DFF, 0x20D0, 0x20DC, 0x20E1,
    0x20E1, 0x20E5, 0x20F0, 0x2CEF, 0x2CF1, 0x2D7F, 0x2D7F, 0x2DE0, 0x2DFF, 0x302A, 0x302D,
    0x3099, 0x309A, 0xA66F, 0xA66F, 0xA674, 0xA67D, 0xA69E, 0xA69F, 0xA6F0, 0xA6F1, 0xA802,
    0xA802, 0xA806, 0xA806, 0xA80B, 0xA80B, 0xA825, 0xA826, 0xA8C4, 0xA8C4, 0xA8E0, 0xA8F1,
    0xA926, 0xA92D, 0xA947, 0xA951, 0xA980, 0xA982, 0xA9B3, 0xA9B3, 0xA9B6, 0xA9B9, 0xA9BC,
    0xA9BC, 0xA9E5, 0xA9E5, 0xAA29, 0xAA2E, 0xAA31, 0xAA32, 0xAA35, 0xAA36, 0xAA43, 0xAA43,
    0xAA4C, 0xAA4C, 0xAA7C, 0xAA7C, 0xAAB0, 0xAAB0, 0xAAB2, 0xAAB4, 0xAAB7, 0xAAB8, 0xAABE,
    0xAABF, 0xAAC1, 0xAAC1, 0xAAEC, 0xAAED, 0xAAF6, 0xAAF6, 0xABE5, 0xABE5, 0xABE8, 0xABE8,
    0xABED, 0xABED, 0xFB1E, 0xFB1E, 0xFE00, 0xFE0F, 0xFE20, 0xFE2F, 0x101FD, 0x101FD, 0x102E0,
    0x102E0, 0x10376, 0x1037A, 0x10A01, 0x10A03, 0x10A05, 0x10A06, 0x10A0C, 0x10A0F, 0x10A38,
    0x10A3A, 0x10A3F, 0x10A3F, 0x10AE5, 0x10AE6, 0x11001, 0x11001, 0x11038, 0x11046, 0x1107F,
    0x11081, 0x110B3, 0x110B6, 0x110B9, 0x110BA, 0x11100, 0x11102, 0x11127, 0x1112B, 0x1112D,
    0x11134, 0x11173, 0x11173, 0x11180, 0x11181, 0x111B6, 0x111BE, 0x111CA, 0x111CC, 0x1122F,
    0x11231, 0x11234, 0x11234, 0x11236, 0x11237, 0x112DF, 0x112DF, 0x112E3, 0x112EA, 0x11300,
    0x11301, 0x1133C, 0x1133C, 0x11340, 0x11340, 0x11366, 0x1136C, 0x11370, 0x11374, 0x114B3,
    0x114B8, 0x114BA, 0x114BA, 0x114BF, 0x114C0, 0x114C2, 0x114C3, 0x115B2, 0x115B5, 0x115BC,
    0x115BD, 0x115BF, 0x115C0, 0x115DC, 0x115DD, 0x11633, 0x1163A, 0x1163D, 0x1163D, 0x1163F,
    0x11640, 0x116AB, 0x116AB, 0x116AD, 0x116AD, 0x116B0, 0x116B5, 0x116B7, 0x116B7, 0x1171D,
    0x1171F, 0x11722, 0x11725, 0x11727, 0x1172B, 0x16AF0, 0x16AF4, 0x16B30, 0x16B36, 0x16F8F,
    0x16F92, 0x1BC9D, 0x1BC9E, 0x1D167, 0x1D169, 0x1D17B, 0x1D182, 0x1D185, 0x1D18B, 0x1D1AA,
    0x1D1AD, 0x1D242, 0x1D244, 0x1DA00, 0x1DA36, 0x1DA3B, 0x1DA6C, 0x1DA75, 0x1DA75, 0x1DA84,
    0x1DA84, 0x1DA9B, 0x1DA9F, 0x1DAA1, 0x1DAAF, 0x1E8D0, 0x1E8D6, 0xE0100, 0xE01EF,
)
