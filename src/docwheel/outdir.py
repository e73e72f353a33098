"""Output directories that are replaced all or nothing.

A build or a fetch writes into a scratch directory beside its output and renames it into
place only when everything succeeded, so a failure leaves the old output (or nothing). It
never replaces something it did not write: only a missing path, an empty directory, or one
that carries its own marker file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import BuildError


def check_replaceable(out: Path, *, marker: str, kind: str, by: str) -> None:
    """Refuse an ``out`` that is neither missing, empty, nor a ``kind`` (has ``marker``)."""
    if not os.path.lexists(out):
        return
    if out.is_symlink() or not out.is_dir():
        raise BuildError(
            f"output {out} exists and is not a directory ({by} replaces it); "
            "choose a new or empty directory"
        )
    if any(out.iterdir()) and not (out / marker).is_file():
        raise BuildError(
            f"output {out} is a non-empty directory that is not a {kind}; "
            f"{by} replaces it, so choose a new or empty directory"
        )


@contextmanager
def replacing(out: Path) -> Iterator[Path]:
    """Yield an empty scratch directory that replaces ``out`` when the block succeeds."""
    # Folders made for the output are removed again on failure: a failed build (a streamed
    # source fails while it is indexed) leaves nothing behind.
    made = [p for p in (out.parent, *out.parent.parents) if not p.exists()]
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        yield scratch
        if out.exists():
            shutil.rmtree(out)
        scratch.rename(out)
    except BaseException as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        for folder in made:
            try:
                folder.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError):
            # A full disk or a lost permission: one line naming the output, also where only
            # docwheel's own errors are reported (the build hook), never a traceback.
            raise BuildError(f"could not write {out}: {exc}") from exc
        raise
