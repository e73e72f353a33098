"""Hatchling build hook: build the docs index and put it inside the wheel.

Thin on purpose: it finds the sources file, calls ``docwheel.build.build_from_file`` from
this checkout's ``src/`` and hands the result to hatchling. The sdist only carries this file
and the sources file; indexing happens when a wheel is built.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

DEFAULT_CONFIG = "docwheel.yaml"
INDEX_IN_WHEEL = "docwheel/_index"


class DocwheelIndexHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        config = Path(os.environ.get("DOCWHEEL_CONFIG") or self.config.get("config") or DEFAULT_CONFIG)
        if not config.is_absolute():
            config = root / config
        if version == "editable":
            # Editable installs ignore force_include: write where the source tree is imported from.
            out = root / "src" / "docwheel" / "_index"
        else:
            self._scratch = tempfile.mkdtemp(prefix="docwheel-index-")
            out = Path(self._scratch) / "_index"
            build_data["force_include"][str(out)] = INDEX_IN_WHEEL

        sys.path.insert(0, str(root / "src"))
        try:
            from docwheel.build import build_from_file
            from docwheel.errors import DocwheelError

            def progress(message: str) -> None:
                print(f"docwheel: {message}", file=sys.stderr, flush=True)

            try:
                build_from_file(config, out, version=self.metadata.version, progress=progress)
            except DocwheelError as exc:
                # One clear message instead of a traceback through the build backend.
                print(f"docwheel: build failed: {exc}", file=sys.stderr, flush=True)
                raise SystemExit(1) from None
        finally:
            sys.path.remove(str(root / "src"))

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        scratch = getattr(self, "_scratch", None)
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
