"""Nothing private ships: find credentials in the text a build is about to index.

``scan_pages`` is pure (pages in, findings out); ``check_secrets`` is what the build calls
after every source loaded and before anything is written: it drops the findings the sources
file allows (``allow_secrets:``) and raises ``SecretsFoundError`` naming the rest.

What is scanned: each page as indexed — its title, its description, then every section's
heading and text, one after the other; a finding's line counts lines of that text.

Public docs are full of credential-shaped text that is not a credential, so a match must
also look like one (``looks_random``): a known provider format whose body looks random, or,
for a password in a URL, a value that looks generated. Not a secret, then, is a match that
- is a placeholder: it contains ``example``, ``sample``, ``dummy``, ``placeholder``,
  ``fake``, ``redacted``, ``your`` or ``xxxx`` (any case), ``...``, ``…``, ``****``, a
  template mark ``<>{}$%``, or a run of six identical or consecutive characters
  (``000000``, ``123456``, ``abcdef``);
- is a documented example: a vendor's published sample (AWS's ``AKIAIOSFODNN7EXAMPLE``,
  jwt.io's token), or a JWT issued by or for localhost (a tutorial's local server);
- is a toy value: its body is words of one kind of character (``not-a-real-token``), a
  unit repeated (``abc123abc123``) or a few characters over and over (low Shannon
  entropy); or, for a password in a URL (judged unescaped), one that is short or
  guessable: under ~45 bits by length and alphabet (``public:koala@``), containing a stock
  word even spelt with digits (``secret123``, ``p%40ssw0rd``), equal to the user name,
  starting with a provider's prefix without being that provider's key
  (``github_pat_asdf``), or for localhost or an example domain (``db.example.com``).
Generic ``sk-`` keys must also be long (32+ characters), mix upper case, lower case and
digits, and look random (Shannon entropy of at least 4 bits per character).

Why our own patterns and not ``detect-secrets``: on the shared docs corpora (18.6 MB) its
default plugins report 200 findings, all placeholders, toy values, hashes and tutorial
tokens, at 0.14 MB/s; it finds none of the Google, OpenAI, Anthropic or fine-grained
GitHub keys in ``tests/test_secrets.py``, and it pulls in ``requests``. This scan reads
about 40 MB/s.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from .config import AllowSecret
from .errors import SecretsFoundError
from .models import Page

MAX_LISTED = 20

# jwt.io's sample token signature, and the AWS documentation's sample key id.
KNOWN_SAMPLES = frozenset({"AKIAIOSFODNN7EXAMPLE", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"})
_PLACEHOLDER_WORDS = (
    "example", "sample", "dummy", "placeholder", "fake", "redacted", "your", "xxxx"
)
_PLACEHOLDER_MARKS = ("...", "…", "****", "<", ">", "{", "}", "$", "%")
_RUN = 6
# A password in a URL that is one of these, or contains one of the words, is a tutorial's.
_STOCK_PASSWORDS = frozenset({"pass", "pwd", "root"})
_STOCK_WORDS = (
    "password", "passwd", "secret", "changeme", "admin", "guest", "test", "demo", "qwerty",
    "letmein", "asdf", "hunter",
)
# Spelling a stock word with digits or symbols keeps it one: p@ssw0rd, s3cr3t, pa$$word.
_LEET = str.maketrans("013457$@!", "oieastsai")
# Separators do not make a value more random: ``not-a-real-token`` is one kind of character.
_CLASSES = (
    re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"[0-9]"), re.compile(r"[^\w.~-]")
)
# A password in a URL counts when guessing it takes about 2**45 tries (8 characters of mixed
# case letters and digits; 10 of lower case and digits).
_PASSWORD_BITS = 45
_LOCAL_HOST = re.compile(r"(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?$|(?:^|\.)example(?:\.|$)")


@dataclass(frozen=True)
class Finding:
    """A possible credential: where it is, what it looks like, and its fingerprint.

    ``page`` is the page's URL (or its path when it has none). ``secret`` is the matched
    value: messages show only its start and ``fingerprint``, which an ``allow_secrets``
    entry can name instead of the secret itself.
    """

    source: str
    page: str
    path: str
    line: int
    kind: str
    secret: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.secret)

    def describe(self) -> str:
        shown = self.secret[:6] + "…" if len(self.secret) > 6 else "…"
        return (
            f"{self.source}: {self.page} line {self.line}: {self.kind} {shown} "
            f"(match: {self.fingerprint})"
        )


def fingerprint(secret: str) -> str:
    """What an allowlist entry names instead of the secret: ``sha256:`` + 16 hex digits."""
    return "sha256:" + hashlib.sha256(secret.encode("utf-8")).hexdigest()[:16]


def _ok(_value: str) -> bool:
    return True


def looks_random(value: str, *, min_classes: int = 1, min_bits: float = 0.0) -> bool:
    """Whether ``value`` looks generated rather than typed for an example.

    Not generated: words of one kind of character joined by separators (``-_.~``, as in
    ``not-a-real-token``), a short unit repeated (``abc123abc123``), few distinct characters
    (Shannon entropy under 2.3 bits each, less for short values: no random 16-character key
    of letters and digits fell below it in 50,000 draws), fewer than ``min_classes`` kinds of
    character (lower case, upper case, digits, symbols), or, with ``min_bits``, too short
    for its alphabet (``len * log2(alphabet)`` bits).
    """
    if len(value) < 2:
        return False
    kinds = [bool(pattern.search(value)) for pattern in _CLASSES]
    separated = re.search(r"[.~_-]", value) is not None
    if sum(kinds) < min_classes or (sum(kinds) == 1 and separated):
        return False
    if _periodic(value) or _entropy(value) < min(2.3, math.log2(len(value)) - 1.0):
        return False
    alphabet = 26 * kinds[0] + 26 * kinds[1] + 10 * kinds[2] + 33 * (kinds[3] or separated)
    return len(value) * math.log2(max(alphabet, 2)) >= min_bits


def _periodic(value: str) -> bool:
    """A unit repeated to fill the value: ``abcabc``, ``abc123abc123abc1``."""
    for unit in range(1, len(value) // 2 + 1):
        if all(value[i] == value[i + unit] for i in range(len(value) - unit)):
            return True
    return False


def _random_body(prefix: int) -> Callable[[str], bool]:
    """A provider key's check: what follows its ``prefix`` characters looks random."""
    return lambda value: looks_random(value[prefix:])


def _random_sk(value: str) -> bool:
    body = value.split("-", 2)[-1] if value.startswith("sk-ant-") else value[3:]
    return len(body) >= 32 and looks_random(body, min_classes=3) and _entropy(body) >= 4.0


def _private_key_body(value: str) -> bool:
    """A key block with a real body, not ``-----BEGIN … PRIVATE KEY-----`` and dots."""
    body = value.split("-----", 2)[-1]
    return len(re.findall(r"[A-Za-z0-9+/=]", body)) >= 64


# (kind, a literal every match contains, pattern, a check the match must pass). Order
# matters: where two patterns match overlapping text, the earlier names the finding. The
# literals skip a pattern for text that cannot match it (a regex pass per pattern is slow).
PATTERNS: tuple[tuple[str, tuple[str, ...], re.Pattern[str], Callable[[str], bool]], ...] = (
    (
        "private-key",
        ("PRIVATE KEY",),
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:(?!-----END)[\s\S]){0,4000}"
        ),
        _private_key_body,
    ),
    (
        "aws-access-key-id",
        ("AKIA", "ASIA"),
        re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        _random_body(4),
    ),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
        _random_body(4),
    ),
    (
        "github-token",
        ("github_pat_",),
        re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
        _random_body(11),
    ),
    ("slack-token", ("xox",), re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}"), _random_body(5)),
    (
        "stripe-secret-key",
        ("k_live_",),
        re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,}\b"),
        _random_body(8),
    ),
    (
        "google-api-key",
        ("AIza",),
        re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
        _random_body(4),
    ),
    ("anthropic-api-key", ("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9_-]{32,}"), _random_sk),
    ("openai-api-key", ("sk-",), re.compile(r"\bsk-[A-Za-z0-9_-]{32,}"), _random_sk),
    (
        "jwt",
        ("eyJ",),
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"),
        _ok,
    ),
    (
        "password-in-url",
        ("://",),
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://([^\s:/?#@]*):([^\s/?#@]+)@([^\s/?#@]+)"),
        _ok,
    ),
)


# Every provider key's literal start; a URL password that starts so is judged as that key.
_PREFIXES = (
    "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxb-", "xoxa-",
    "xoxp-", "xoxr-", "xoxs-", "sk_live_", "rk_live_", "AIza", "sk-", "eyJ",
)


def _example(kind: str, match: re.Match[str]) -> bool:
    """The placeholder rule for one match (see the module docstring)."""
    if kind != "password-in-url":
        return is_placeholder(match.group(0))
    user, password, host = match.groups()
    password = unquote(password)  # judged as typed: p%40ss is p@ss
    return (
        is_placeholder(password)
        or "example" in match.group(0).lower()
        or toy_password(password, user)
        or _LOCAL_HOST.search(host.lower()) is not None
    )


def toy_password(password: str, user: str = "") -> bool:
    """A password a page made up for its example: guessable, stock, or a key's stub.

    A provider's prefix (``github_pat_asdf``) means the value was already judged as that
    provider's key, which it is not when it got here: a shortened example.
    """
    lower = password.lower()
    plain = lower.translate(_LEET)
    return (
        lower in _STOCK_PASSWORDS
        or any(word in lower or word in plain for word in _STOCK_WORDS)
        or password == user
        or password.startswith(_PREFIXES)
        or not looks_random(password, min_bits=_PASSWORD_BITS)
    )


def is_placeholder(value: str) -> bool:
    """True for a documentation placeholder (the rule in the module docstring)."""
    if value in KNOWN_SAMPLES or any(sample in value for sample in KNOWN_SAMPLES):
        return True
    lower = value.lower()
    if any(word in lower for word in _PLACEHOLDER_WORDS):
        return True
    if any(mark in value for mark in _PLACEHOLDER_MARKS):
        return True
    return _has_run(value) or _jwt_placeholder(value)


def _has_run(value: str) -> bool:
    same = up = 1
    for before, after in zip(value, value[1:]):
        same = same + 1 if after == before else 1
        up = up + 1 if after.isalnum() and ord(after) == ord(before) + 1 else 1
        if same >= _RUN or up >= _RUN:
            return True
    return False


def _jwt_placeholder(value: str) -> bool:
    """A JWT whose decoded header or payload says it is an example."""
    parts = value.split(".")
    if len(parts) != 3 or not value.startswith("eyJ"):
        return False
    decoded = ""
    for part in parts[:2]:
        try:
            decoded += base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return False
    decoded = decoded.lower()
    local = ("://localhost", "://127.0.0.1")
    return any(word in decoded for word in _PLACEHOLDER_WORDS + local)


def _entropy(text: str) -> float:
    counts = {c: text.count(c) for c in set(text)}
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def page_text(page: Page) -> str:
    """The text scanned for a page: title, description, then each section's heading and text."""
    parts = [page.title, page.description]
    for section in page.sections:
        if section.anchor:
            parts.append(section.heading)
        parts.append(section.text)
    return "\n".join(parts)


def scan_text(text: str) -> list[tuple[int, str, str]]:
    """(line, kind, secret) for every credential in ``text``, in order of position."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, int, str, str]] = []
    for kind, needles, pattern, plausible in PATTERNS:
        if not any(needle in text for needle in needles):
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            if _example(kind, match) or not plausible(match.group(0)):
                continue
            taken.append((start, end))
            secret = match.group(0).split("\n", 1)[0] if kind == "private-key" else match.group(0)
            found.append((start, text.count("\n", 0, start) + 1, kind, secret))
    return [(line, kind, secret) for _, line, kind, secret in sorted(found)]


def scan_pages(source: str, pages: Iterable[Page]) -> list[Finding]:
    return [
        Finding(source, page.url or page.path, page.path, line, kind, secret)
        for page in pages
        for line, kind, secret in scan_text(page_text(page))
    ]


def allowed(finding: Finding, entry: AllowSecret) -> bool:
    """Whether an ``allow_secrets`` entry covers a finding: same source, same page if it
    names one, and ``match`` is the finding's fingerprint or a literal part of the secret."""
    if entry.source != finding.source:
        return False
    if entry.page and entry.page not in (finding.page, finding.path):
        return False
    return entry.match == finding.fingerprint or entry.match in finding.secret


def check_secrets(
    loaded: Iterable[tuple[str, Sequence[Page]]], allow: Sequence[AllowSecret] = ()
) -> list[str]:
    """Raise ``SecretsFoundError`` for any finding not allowed; return warnings for the
    ``allow_secrets`` entries that allowed nothing (stale exceptions should be removed)."""
    return judge_findings([f for source, pages in loaded for f in scan_pages(source, pages)], allow)


def judge_findings(findings: Sequence[Finding], allow: Sequence[AllowSecret] = ()) -> list[str]:
    """``check_secrets`` for findings gathered elsewhere (the build scans pages as it
    indexes them, so a streamed source is read once)."""
    used = [False] * len(allow)
    left = []
    for finding in findings:
        hits = [i for i, entry in enumerate(allow) if allowed(finding, entry)]
        for i in hits:
            used[i] = True
        if not hits:
            left.append(finding)
    if left:
        raise SecretsFoundError([f.describe() for f in left], MAX_LISTED)
    return [
        f"allow_secrets[{i}] ({entry.source}: {entry.match}) matched nothing; remove it"
        for i, entry in enumerate(allow)
        if not used[i]
    ]
