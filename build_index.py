"""Hatchling build hook: build the docs index and put it inside the wheel.

Thin on purpose: it finds the sources file, calls ``docwheel.build.build_from_file`` from
this checkout's ``src/`` and hands the result to hatchling. The sdist only carries this file
and the sources file; indexing happens when a wheel is built.

- A standard wheel gets the index from a scratch directory through ``force_include``; the
  scratch directory is removed when the wheel is written, or at once if the build fails.
- An editable install (``pip install -e .``) ignores ``force_include``, so the index is
  written to ``src/docwheel/_index`` (git-ignored), where the editable package is imported
  from.
- A failure is one line on stderr (``docwheel: build failed: …``) and exit status 1: no
  traceback through the build backend, and no wheel.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

DEFAULT_CONFIG = "docwheel.yaml"
CONFIG_ENV_VAR = "DOCWHEEL_CONFIG"
INDEX_IN_WHEEL = "docwheel/_index"
EDITABLE_INDEX = Path("src", "docwheel", "_index")


def _say(message: str) -> None:
    print(f"docwheel: {message}", file=sys.stderr, flush=True)


def _fail(message: str) -> NoReturn:
    """Stop the build with one clear line instead of a traceback through the backend."""
    _say(f"build failed: {message}")
    raise SystemExit(1)


class DocwheelIndexHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    _scratch: str | None = None

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        config = self._config_path(root)
        if version == "editable":
            out = root / EDITABLE_INDEX
        else:
            self._scratch = tempfile.mkdtemp(prefix="docwheel-index-")
            # finalize() removes it; this covers a build that fails after initialize().
            atexit.register(shutil.rmtree, self._scratch, ignore_errors=True)
            out = Path(self._scratch) / "_index"
        try:
            self._build(root, config, out)
        except BaseException:
            self._remove_scratch()
            raise
        if version != "editable":
            build_data["force_include"][str(out)] = INDEX_IN_WHEEL

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        self._remove_scratch()

    def _config_path(self, root: Path) -> Path:
        """DOCWHEEL_CONFIG, else the hook option ``config``, else docwheel.yaml; relative
        paths are taken from the project root."""
        name = os.environ.get(CONFIG_ENV_VAR) or self.config.get("config") or DEFAULT_CONFIG
        if not isinstance(name, str):
            _fail(f"the hook option 'config' must be a file name, got {name!r}")
        path = Path(name)
        return path if path.is_absolute() else root / path

    def _build(self, root: Path, config: Path, out: Path) -> None:
        src = str(root / "src")
        sys.path.insert(0, src)
        try:
            try:
                from docwheel.build import build_from_file
                from docwheel.errors import DocwheelError
            except ImportError as exc:
                _fail(
                    f"cannot import docwheel's build code from {src}: {exc} "
                    "(the build environment needs whoosh-reloaded and pyyaml)"
                )
            try:
                build_from_file(config, out, version=self.metadata.version, progress=_say)
            except DocwheelError as exc:
                _fail(str(exc).strip())
        finally:
            sys.path.remove(src)

    def _remove_scratch(self) -> None:
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
