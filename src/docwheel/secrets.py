"""Nothing private ships: find credentials in the text a build is about to index.

``scan_pages`` is pure (pages in, findings out); ``check_secrets`` is what the build calls
after every source loaded and before anything is written: it drops the findings the sources
file allows (``allow_secrets:``) and raises ``SecretsFoundError`` naming the rest.

What is scanned: each page as indexed — its title, its description, then every section's
heading and text, one after the other; a finding's line counts lines of that text.

What is not a secret (the placeholder rule): a match whose value
- contains ``example``, ``sample``, ``dummy``, ``placeholder``, ``fake``, ``redacted``,
  ``your`` or ``xxxx`` (any case), ``...``, ``…``, ``****``, or a template mark ``<>{}$%``;
- has a run of six identical or consecutive characters (``000000``, ``123456``, ``abcdef``);
- is a well-known published sample (AWS's ``AKIAIOSFODNN7EXAMPLE``, jwt.io's token);
- is a password in a URL that is a stock word (``password``, ``pass``, ``secret``, …), equals
  the user name, or is for localhost or an example domain (``db.example.com``);
- or is a JWT issued by or for localhost (a token from a tutorial's local server).
Generic ``sk-`` keys must also be long (32+ characters), mix upper case, lower case and
digits, and look random (Shannon entropy of at least 4 bits per character).
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

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
_STOCK_PASSWORDS = frozenset(
    {"password", "passwd", "pass", "pwd", "secret", "changeme", "admin", "root", "test", "guest"}
)
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


def _random_sk(value: str) -> bool:
    body = value.split("-", 2)[-1] if value.startswith("sk-ant-") else value[3:]
    return (
        len(body) >= 32
        and re.search(r"[a-z]", body) is not None
        and re.search(r"[A-Z]", body) is not None
        and re.search(r"[0-9]", body) is not None
        and _entropy(body) >= 4.0
    )


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
    ("aws-access-key-id", ("AKIA", "ASIA"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), _ok),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
        _ok,
    ),
    ("github-token", ("github_pat_",), re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"), _ok),
    ("slack-token", ("xox",), re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}"), _ok),
    ("stripe-secret-key", ("k_live_",), re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,}\b"), _ok),
    (
        "google-api-key",
        ("AIza",),
        re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
        _ok,
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


def _example(kind: str, match: re.Match[str]) -> bool:
    """The placeholder rule for one match (see the module docstring)."""
    if kind != "password-in-url":
        return is_placeholder(match.group(0))
    user, password, host = match.groups()
    return (
        is_placeholder(password)
        or "example" in match.group(0).lower()
        or password.lower() in _STOCK_PASSWORDS
        or password == user
        or _LOCAL_HOST.search(host.lower()) is not None
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
