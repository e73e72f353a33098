"""The secret scan: every credential shape is found with its page and line, documentation
placeholders are not, an allowlisted finding passes, and a build with a secret writes nothing.

Secrets are assembled at run time from a seeded random generator, so this file holds no
string that a secret scanner would flag.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from helpers import CORPORA, write_config

from docwheel.build import build_from_file
from docwheel.cli import main
from docwheel.config import AllowSecret, load_config, parse_config
from docwheel.errors import ConfigError, SecretsFoundError, SourceError
from docwheel.models import Page, Section
from docwheel.sources import load_source
from docwheel.secrets import (
    check_secrets,
    fingerprint,
    is_placeholder,
    looks_random,
    scan_pages,
    scan_text,
    toy_password,
)

_rng = random.Random(6)
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits


def rand(n: int, alphabet: str = ALNUM, rng: random.Random = _rng) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64url(n: int) -> str:
    return rand(n, ALNUM + "-_")


KEY_BODY = "\n".join(rand(64, ALNUM + "+/") for _ in range(4))
SECRETS = {
    "private-key": f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----",
    "aws-access-key-id": "AKIA" + rand(16, UPPER),
    "github-token": "ghp_" + rand(36),
    "slack-token": "xoxb-" + rand(12, string.digits) + "-" + rand(24),
    "stripe-secret-key": "sk_live_" + rand(24),
    "google-api-key": "AIza" + b64url(35),
    "openai-api-key": "sk-proj-" + rand(48),
    "anthropic-api-key": "sk-ant-api03-" + rand(80),
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9." + b64url(43),
    "password-in-url": f"postgres://deploy:{rand(16)}@db.internal.acme.dev:5432/prod",
}


def page(text: str, path: str = "guide/setup") -> Page:
    return Page(
        url=f"https://docs.acme.dev/{path}",
        path=path,
        title="Setup",
        description="How to set up",
        sections=(
            Section("", "", 1, ("Setup",), "Intro line."),
            Section("configure", "Configure", 2, ("Setup", "Configure"), text),
        ),
    )


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_is_found_with_its_page_and_line(kind: str) -> None:
    # title, description, intro, heading: the section text starts on line 5
    findings = scan_pages("guide", [page(f"Set it up.\n\n    token = {SECRETS[kind]}\n")])
    assert [(f.source, f.page, f.line, f.kind) for f in findings] == [
        ("guide", "https://docs.acme.dev/guide/setup", 7, kind)
    ]
    assert SECRETS[kind].startswith(findings[0].secret)


def test_a_github_fine_grained_token_is_found() -> None:
    assert [kind for _, kind, _ in scan_text("github_pat_" + rand(22) + "_" + rand(59))] == [
        "github-token"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_" + "x" * 36,
        "ghp_EXAMPLE" + rand(30),
        "export GITHUB_TOKEN=ghp_yourTokenGoesHere" + rand(20),
        "sk_live_" + "0" * 24,
        "sk-" + "1234567890abcdef" * 3,  # counting run, low entropy
        "sk-" + rand(40, string.ascii_lowercase),  # no digits or upper case
        "sk-...",
        "sk-scikit-learn-linear-regression-tutorial-page",
        "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n<your key here>\n-----END OPENSSH PRIVATE KEY-----",
        # jwt.io's sample token
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4g"
        "RG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "postgresql://user:password@localhost/app",
        "postgresql://user:pass@db.example.com/app",
        "redis://admin:admin@cache:6379",
        "mysql://root:<password>@db:3306",
        "amqp://guest:${RABBIT_PASSWORD}@mq/",
        "https://user:****@host/",
        "mailto:someone@acme.dev and https://acme.dev/@user",
        # placeholders
        "git+https://<user>:<token>@github.com/acme/private.git",
        "export GITHUB_TOKEN=${TOKEN} and https://ci:${TOKEN}@git.acme.dev/repo",
        "https://deploy:YOUR_API_KEY@registry.acme.dev/simple",
        "https://deploy:xxxxxxxxxxxxxxxx@registry.acme.dev/simple",
        "password=secret123 and api_key: YOUR_API_KEY",  # no provider's format
        # toy values: short, stock words (also spelt with digits or escaped), one kind of
        # character, a unit repeated, a provider's prefix cut short
        "https://public:koala@pypi-proxy.corp.dev/simple",
        "postgres://app:secret123@db.internal.acme.dev/app",
        "mongodb+srv://username:pa%24%24word@cluster0.acme.dev/app",
        "mongodb://db_user:D1fficultP%40ssw0rd@mongo.acme.dev:27017/",
        "postgres://app:mypassword2024@db.internal.acme.dev/app",
        "git+https://git:github_pat_asdf@github.com/astral-sh/uv",
        "https://ci:ghp_abc123@github.com/acme/repo.git",
        "xoxb-" + "not-a-real-token-this-will-not-work",
        "AKIA" + "1111222233334444",
        "ghp_" + "abc123" * 6,
        "sk_live_" + "Ab1" * 8,
    ],
)
def test_documentation_placeholders_are_not_findings(text: str) -> None:
    assert scan_text(text) == []


# Values drawn as the providers issue them (alphabet and length): every one is found.
ISSUED = {
    "aws-access-key-id": lambda r: "AKIA" + rand(16, string.ascii_uppercase + "234567", r),
    "github-token": lambda r: "ghp_" + rand(36, ALNUM, r),
    "slack-token": lambda r: f"xoxb-{rand(12, string.digits, r)}-{rand(13, string.digits, r)}-"
    + rand(24, ALNUM, r),
    "stripe-secret-key": lambda r: "sk_live_" + rand(24, ALNUM, r),
    "google-api-key": lambda r: "AIza" + rand(35, ALNUM + "-_", r),
    "openai-api-key": lambda r: "sk-proj-" + rand(48, ALNUM, r),
    "anthropic-api-key": lambda r: "sk-ant-api03-" + rand(80, ALNUM + "-_", r),
    "password-in-url": lambda r: f"postgres://deploy:{rand(12, ALNUM, r)}@db.acme.dev/prod",
}


@pytest.mark.parametrize("kind", sorted(ISSUED))
def test_real_looking_credentials_are_found_however_the_random_draw_falls(kind: str) -> None:
    draw = random.Random(kind)
    for _ in range(300):
        value = ISSUED[kind](draw)
        assert [k for _, k, _ in scan_text(f"key: {value}")] == [kind], value


def test_a_url_password_is_judged_unescaped() -> None:
    """p%40ss is p@ss: an escape is neither a template mark nor a way to hide a password."""
    url = "postgres://app:Xk9%40mQ2vL7pRt@db.acme.dev/prod"
    assert [kind for _, kind, _ in scan_text(url)] == ["password-in-url"]


def test_looks_random_tells_generated_values_from_typed_ones() -> None:
    assert looks_random("AKIA" + rand(16, UPPER))
    assert looks_random(rand(64, "0123456789abcdef"))  # hex: two kinds of character
    assert not looks_random("not-a-real-token")  # words of one kind, separated
    assert not looks_random("abc123abc123abc1")  # a unit repeated
    assert not looks_random("1111222233334444")  # few distinct characters
    assert looks_random("aB3kL9xQ", min_bits=45)  # 8 of letters and digits: 47.6 bits
    assert not looks_random("koala", min_bits=45)  # 23.5 bits
    assert not looks_random("hunter22", min_bits=45)  # lower case and digits: 41.4 bits


def test_toy_passwords() -> None:
    assert toy_password("koala", "public")
    assert toy_password("github_pat_asdf", "git")
    assert toy_password("s3cr3t-v4lu3", "app")  # secret, spelt with digits
    assert toy_password("deploy", "deploy")
    assert not toy_password(rand(16), "deploy")


def test_placeholder_rule() -> None:
    assert is_placeholder("AKIAIOSFODNN7EXAMPLE")
    assert is_placeholder("token-abcdefgh")  # consecutive run
    assert is_placeholder("<your-token>")
    assert not is_placeholder(SECRETS["aws-access-key-id"])


def test_overlapping_patterns_report_one_finding() -> None:
    text = f"https://bot:{SECRETS['github-token']}@github.com/acme/repo.git"
    assert [kind for _, kind, _ in scan_text(text)] == ["github-token"]


def test_titles_and_descriptions_are_scanned() -> None:
    leaky = Page("u", "p", "Setup", f"Key {SECRETS['aws-access-key-id']}", ())
    assert [(f.line, f.kind) for f in scan_pages("s", [leaky])] == [(2, "aws-access-key-id")]


def test_allowlisted_findings_pass_by_fingerprint_or_literal() -> None:
    secret = SECRETS["stripe-secret-key"]
    pages = [("guide", [page(f"key: {secret}")])]
    with pytest.raises(SecretsFoundError):
        check_secrets(pages)
    assert check_secrets(pages, [AllowSecret("guide", fingerprint(secret))]) == []
    assert check_secrets(pages, [AllowSecret("guide", secret[:12], page="guide/setup")]) == []
    with pytest.raises(SecretsFoundError):  # another page, another source
        check_secrets(pages, [AllowSecret("guide", secret[:12], page="other")])
    with pytest.raises(SecretsFoundError):
        check_secrets(pages, [AllowSecret("api", fingerprint(secret))])
    unused = AllowSecret("guide", "sha256:0000000000000000")
    warnings = check_secrets(pages, [AllowSecret("guide", fingerprint(secret)), unused])
    assert warnings == ["allow_secrets[1] (guide: sha256:0000000000000000) matched nothing; remove it"]


def test_the_message_lists_every_finding_up_to_a_cap() -> None:
    pages = [page("\n".join(f"k{i} = AKIA{rand(16, UPPER)}" for i in range(25)))]
    with pytest.raises(SecretsFoundError) as info:
        check_secrets([("guide", pages)])
    lines = str(info.value).splitlines()
    assert lines[0].startswith("25 possible secret(s) in the text to index")
    assert len(lines) == 1 + 20 + 1 and lines[-1] == "  … and 5 more"
    assert lines[1].startswith("  guide: https://docs.acme.dev/guide/setup line 5: aws-access-key-id AKIA")
    assert isinstance(info.value, SourceError) and info.value.source == "guide"


def _site(tmp_path: Path, text: str, allow: str = "") -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nWelcome.\n", encoding="utf-8")
    (docs / "deploy.md").write_text(f"# Deploy\n\n## Keys\n\nFirst.\n{text}\n", encoding="utf-8")
    return write_config(
        tmp_path,
        f"name: acme\nsources:\n  - name: site\n    kind: markdown\n    path: docs\n{allow}",
    )


def test_a_build_with_a_secret_fails_and_writes_nothing(tmp_path: Path, capsys) -> None:
    config = _site(tmp_path, f"aws_access_key_id = {SECRETS['aws-access-key-id']}")
    out = tmp_path / "out" / "index"
    with pytest.raises(SecretsFoundError) as info:
        build_from_file(config, out)
    assert not (tmp_path / "out").exists()
    message = str(info.value)
    assert "site: deploy.md line 6: aws-access-key-id AKIA" in message
    assert SECRETS["aws-access-key-id"] not in message  # the message never repeats a secret

    assert main(["build", "--config", str(config), "--out", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("docwheel: error: 1 possible secret(s)")
    assert "site: deploy.md line 6: aws-access-key-id" in err
    assert not (tmp_path / "out").exists()


def test_an_allowlisted_secret_builds(tmp_path: Path) -> None:
    secret = SECRETS["jwt"]
    allow = f"allow_secrets:\n  - source: site\n    page: deploy\n    match: {fingerprint(secret)}\n"
    config = _site(tmp_path, f"Authorization: Bearer {secret}", allow)
    manifest = build_from_file(config, tmp_path / "index")
    assert manifest["pages"] == 2


def test_allow_secrets_is_validated_with_every_problem(tmp_path: Path) -> None:
    allow = (
        "allow_secrets:\n"
        "  - source: nope\n    match: sha256:0123456789abcdef\n"
        "  - source: site\n    match: short\n    pages: x\n"
        "  - match: sha256:0123456789abcdef\n    page: 3\n"
        "  - just a string\n"
    )
    with pytest.raises(ConfigError) as info:
        load_config(_site(tmp_path, "", allow))
    assert info.value.problems == [
        "allow_secrets[0].source: 'nope' is not one of the sources (site)",
        "allow_secrets[1]: unknown key 'pages' (did you mean 'page'?)",
        "allow_secrets[1].match: 'short' is too short to name one secret (8+ characters)",
        "allow_secrets[2].source: missing",
        "allow_secrets[2].page: expected a page URL or path, got a number (3)",
        "allow_secrets[3]: expected a mapping with source and match, got a string ('just a string')",
    ]


def _corpora() -> list[str]:
    return sorted(p.name for p in CORPORA.iterdir() if p.is_dir()) if CORPORA.is_dir() else []


@pytest.mark.skipif(not CORPORA.is_dir(), reason=f"{CORPORA} is not available")
@pytest.mark.parametrize("name", _corpora())
def test_every_shared_corpus_builds_without_allow_secrets(name: str) -> None:
    """Public docs show placeholders, toy passwords and tutorial tokens, not credentials:
    neither the pages a build indexes nor any file's raw text holds a finding."""
    root = CORPORA / name
    files = [f for f in sorted(root.rglob("*")) if f.is_file() and f.name != "SOURCE.md"]
    raw = {
        f"{f.relative_to(root)} line {line}: {kind}"
        for f in files
        for line, kind, _ in scan_text(f.read_text(encoding="utf-8", errors="replace"))
    }
    assert raw == set()
    single = root / "llms-full.txt"
    kind, path = ("llms-full", single.name) if single.is_file() else ("markdown", "docs")
    config = parse_config(
        {"name": "c", "sources": [{"name": "docs", "kind": kind, "path": path}]},
        base_dir=root,
        origin=f"{name}/docwheel.yaml",
    )
    try:
        pages = load_source(config.sources[0], lambda url: pytest.fail(url)).pages
    except SourceError as exc:  # a tree no loader reads yet (reStructuredText)
        assert exc.reason == "no pages found"
        return
    assert check_secrets([("docs", pages)]) == []


@pytest.mark.skipif(not (CORPORA / "uv-docs").is_dir(), reason="uv-docs corpus not available")
def test_uv_docs_build_without_allow_secrets(tmp_path: Path) -> None:
    """Its placeholder and toy credentials (git+https://<user>:<token>@…, public:koala@,
    git:github_pat_asdf@) once failed this build."""
    config = write_config(
        tmp_path,
        f"name: uv\nsources:\n  - name: docs\n    kind: markdown\n"
        f"    path: {CORPORA / 'uv-docs' / 'docs'}\n    base_url: https://docs.astral.sh/uv/\n",
    )
    assert build_from_file(config, tmp_path / "index")["pages"] > 0
