"""Finding the docs wheels installed beside docwheel.

A docs wheel built with docwheel's hatch plugin declares an entry point in the
``docwheel.indexes`` group, named after the distribution and pointing at its package's
``INDEX_DIR``. Entry points are read from installed metadata, so finding the docs costs no
import of anything but the docs packages themselves (a two-line ``__init__``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .errors import IndexLoadError

ENTRY_POINT_GROUP = "docwheel.indexes"


@dataclass(frozen=True)
class InstalledDocs:
    """One installed docs snapshot: its distribution name and version, and its index."""

    name: str
    version: str | None
    directory: Path


def normalise(name: str) -> str:
    """Distribution names compare as PEP 503 says: case and ``-_.`` runs do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_docs() -> list[InstalledDocs]:
    """Every docs snapshot installed in this environment, by name."""
    found: dict[str, InstalledDocs] = {}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        name = normalise(entry.name)
        if name in found:
            continue  # the same distribution seen twice on sys.path: the first one wins
        found[name] = InstalledDocs(name, _dist_version(entry), _index_dir(entry))
    return [found[name] for name in sorted(found)]


def _dist_version(entry: metadata.EntryPoint) -> str | None:
    dist = getattr(entry, "dist", None)
    return dist.version if dist is not None else None


def _index_dir(entry: metadata.EntryPoint) -> Path:
    try:
        target = entry.load()
        directory = Path(target() if callable(target) else os.fspath(target))
    except Exception as exc:  # a broken docs package: say which, whatever it raised
        raise IndexLoadError(
            f"installed docs {entry.name!r} (entry point {entry.value!r}) cannot be loaded "
            f"({type(exc).__name__}: {exc}); reinstall that package, or choose the others "
            "with --only"
        ) from None
    return directory
