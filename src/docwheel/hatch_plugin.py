"""docwheel's hatch plugin: any docs project builds a docs wheel with the installed docwheel.

A docs project needs only this in pyproject.toml, plus its sources file::

    [build-system]
    requires = ["hatchling", "docwheel"]
    build-backend = "hatchling.build"

    [tool.hatch.build.hooks.docwheel]
    config = "docwheel.yaml"    # optional; DOCWHEEL_CONFIG wins, docwheel.yaml is the default

The hook builds the index with ``docwheel.build`` (the installed docwheel, never a source
tree) into ``<package>/_docwheel_index/`` of the wheel. ``<package>`` is the project name as
an import name (``acme-docs`` -> ``acme_docs``) or the hook option ``package``. A project
without that package gets a generated ``__init__.py`` exposing ``INDEX_DIR``; a project
whose dependencies do not name docwheel gets ``docwheel>=<this version>,<next minor>``
added (``scaffold.docwheel_requirement``). Every docs wheel declares a ``docwheel.indexes``
entry point, through which ``docwheel serve`` finds it (``discovery``).

It behaves like docwheel's own hook (``build_index.py``): a failure is one line on stderr
(``docwheel: build failed: …``), exit status 1 and no wheel; an editable install writes the
index into the package folder of the source tree (``src/<package>/`` or ``<package>/``),
where the editable package is imported from.
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
from hatchling.plugin import hookimpl

from .scaffold import INDEX_FOLDER, SOURCES_FILE, docwheel_requirement, import_name, package_init

CONFIG_ENV_VAR = "DOCWHEEL_CONFIG"


def _say(message: str) -> None:
    print(f"docwheel: {message}", file=sys.stderr, flush=True)


def _fail(message: str) -> NoReturn:
    """Stop the build with one clear line instead of a traceback through the backend."""
    _say(f"build failed: {message}")
    raise SystemExit(1)


class DocwheelBuildHook(BuildHookInterface):
    PLUGIN_NAME = "docwheel"

    _scratch: str | None = None

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        package = self._package()
        config = self._config_path(root)
        package_dir = _package_dir(root, package)
        if version == "editable":
            if package_dir is None:
                _fail(
                    f"an editable install writes the index into the package folder, and there "
                    f"is none: create src/{package}/__init__.py (`docwheel new` writes one)"
                )
            out = package_dir / INDEX_FOLDER
        else:
            self._scratch = tempfile.mkdtemp(prefix="docwheel-index-")
            # finalize() removes it; this covers a build that fails after initialize().
            atexit.register(shutil.rmtree, self._scratch, ignore_errors=True)
            out = Path(self._scratch) / INDEX_FOLDER
        try:
            self._build(config, out)
        except BaseException:
            self._remove_scratch()
            raise
        if version != "editable":
            build_data["force_include"][str(out)] = f"{package}/{INDEX_FOLDER}"
            if package_dir is None:
                init = Path(self._scratch or "") / "__init__.py"
                init.write_text(package_init(self.metadata.name), encoding="utf-8")
                build_data["force_include"][str(init)] = f"{package}/__init__.py"
        # Pure data for docwheel (Python 3 only), whatever requires-python says.
        build_data.setdefault("tag", "py3-none-any")
        if not self._names_docwheel():
            from . import __version__

            build_data["dependencies"].append(docwheel_requirement(__version__))
        self._declare_index(package)

    def _declare_index(self, package: str) -> None:
        """Add the ``docwheel.indexes`` entry point through which ``docwheel serve`` finds
        this snapshot. hatchling writes entry_points.txt from the metadata's entry-point
        table after the hooks ran; a table the project wrote itself is left as it is."""
        from .discovery import ENTRY_POINT_GROUP, normalise

        try:
            points = self.metadata.core.entry_points
            group = points.setdefault(ENTRY_POINT_GROUP, {})
        except (AttributeError, TypeError) as exc:  # a hatchling that keeps them elsewhere
            _fail(
                f"cannot declare the {ENTRY_POINT_GROUP} entry point ({exc}); add "
                f'[project.entry-points."{ENTRY_POINT_GROUP}"] '
                f'{normalise(self.metadata.name)} = "{package}:INDEX_DIR" to pyproject.toml'
            )
        if not group:
            group[normalise(self.metadata.name)] = f"{package}:INDEX_DIR"

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        self._remove_scratch()

    def _package(self) -> str:
        package = self.config.get("package") or import_name(self.metadata.name)
        if not isinstance(package, str) or not package.isidentifier():
            _fail(f"the hook option 'package' must be an import name, got {package!r}")
        return package

    def _config_path(self, root: Path) -> Path:
        """DOCWHEEL_CONFIG, else the hook option ``config``, else docwheel.yaml; relative
        paths are taken from the project root."""
        name = os.environ.get(CONFIG_ENV_VAR) or self.config.get("config") or SOURCES_FILE
        if not isinstance(name, str):
            _fail(f"the hook option 'config' must be a file name, got {name!r}")
        path = Path(name)
        return path if path.is_absolute() else root / path

    def _names_docwheel(self) -> bool:
        from packaging.requirements import Requirement
        from packaging.utils import canonicalize_name

        return any(
            canonicalize_name(Requirement(dep).name) == "docwheel"
            for dep in self.metadata.core.dependencies
        )

    def _build(self, config: Path, out: Path) -> None:
        from .build import build_from_file
        from .errors import DocwheelError

        try:
            build_from_file(config, out, version=self.metadata.version, progress=_say)
        except DocwheelError as exc:
            _fail(str(exc).strip())

    def _remove_scratch(self) -> None:
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


def _package_dir(root: Path, package: str) -> Path | None:
    """The docs package in the source tree (src layout first), or None."""
    for candidate in (root / "src" / package, root / package):
        if (candidate / "__init__.py").is_file():
            return candidate
    return None


@hookimpl
def hatch_register_build_hook() -> type[BuildHookInterface]:
    return DocwheelBuildHook
