"""docwheel: offline documentation search for AI assistants.

    import docwheel
    with docwheel.open_index() as docs:          # the index bundled in this package
        for hit in docs.search("add a source").results:
            print(hit.title, hit.url)
"""

from __future__ import annotations

__version__ = "0.1.0"

from .api import DocIndex, open_index  # noqa: E402
from .errors import (  # noqa: E402
    ConfigError,
    DocwheelError,
    FetchError,
    IndexLoadError,
    QueryError,
    SourceError,
    UnknownRefError,
)
from .models import Document, Hit, OutlineEntry, PageOutline, SearchResult  # noqa: E402

__all__ = [
    "__version__",
    "open_index",
    "DocIndex",
    "SearchResult",
    "Hit",
    "Document",
    "PageOutline",
    "OutlineEntry",
    "DocwheelError",
    "ConfigError",
    "SourceError",
    "FetchError",
    "IndexLoadError",
    "QueryError",
    "UnknownRefError",
]
