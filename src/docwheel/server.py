"""MCP wiring only: tool names, schemas and descriptions mapped onto ``DocIndex`` methods.

Handlers adapt and nothing else; ranking, snippets and error wording live in the index.
Every ``DocwheelError`` becomes a ``ToolError`` whose text the model can act on.
"""

# No `from __future__ import annotations`: the SDK evaluates tool signatures, and the
# descriptions below close over this index's source names.

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from . import __version__
from .api import DocIndex
from .errors import DocwheelError

INSTRUCTIONS = """\
This server searches a frozen, offline snapshot of official documentation ({name}).
Use it to answer questions about that documentation instead of relying on memory:
1. Call search_docs with a few words or the user's question; filter by source if useful.
2. Call read_doc with a result's ref to read the whole section or page before answering
   when the snippet is not enough.
3. Cite the url of every result you rely on.
Call list_docs to see which pages exist.
"""

READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


class SearchHit(BaseModel):
    ref: str = Field(description="Stable id of the section; pass it to read_doc.")
    title: str = Field(description="Page title.")
    url: str = Field(description="Page URL with the section anchor; cite it.")
    source: str
    section: str = Field(description="Heading path, e.g. 'Guide > Install > Docker'.")
    snippet: str = Field(description="Best-matching passage, matched words in **bold**.")
    score: float
    text: str | None = Field(default=None, description="Full section text (full_text=true).")

    @model_serializer(mode="wrap")
    def _omit_absent_text(self, handler: SerializerFunctionWrapHandler) -> dict:
        # Without full_text a null `text` on every hit is noise in the model's context.
        data = handler(self)
        if data.get("text") is None:
            data.pop("text", None)
        return data


class SearchDocsResult(BaseModel):
    query: str
    total: int = Field(description="Number of pages that matched.")
    results: list[SearchHit]
    warnings: list[str]


class DocText(BaseModel):
    ref: str
    title: str
    url: str
    source: str
    section: str
    text: str = Field(description="Full Markdown text of the page or section.")


class OutlineSection(BaseModel):
    ref: str
    heading: str
    level: int
    url: str


class PageEntry(BaseModel):
    ref: str
    title: str
    url: str
    source: str
    description: str
    sections: list[OutlineSection]


class DocList(BaseModel):
    total: int
    pages: list[PageEntry]


@contextmanager
def _tool_errors() -> Iterator[None]:
    try:
        yield
    except DocwheelError as exc:
        raise ToolError(str(exc)) from None


def create_server(index: DocIndex) -> MCPServer:
    """An MCP server exposing ``index`` through search_docs, read_doc and list_docs."""
    name = index.manifest.get("name") or "docs"
    server = MCPServer(
        name=f"docwheel ({name})",
        version=__version__,
        instructions=INSTRUCTIONS.format(name=name),
    )
    sources = ", ".join(index.sources)

    @server.tool(annotations=READ_ONLY)
    def search_docs(
        query: Annotated[str, Field(description="Words or a question; AND/OR/NOT and \"phrases\" work.")],
        source: Annotated[str, Field(description=f"'all' or one of: {sources}.")] = "all",
        limit: Annotated[int, Field(ge=1, le=20, description="Pages to return (1-20).")] = 5,
        full_text: Annotated[bool, Field(description="Return each section's full text too.")] = False,
    ) -> SearchDocsResult:
        """Search the documentation; returns the best pages, each with its best section.

        Use the ref of a result with read_doc to read more, and cite the url.
        """
        with _tool_errors():
            result = index.search(query, source=source, limit=limit, full_text=full_text)
        return SearchDocsResult(
            query=result.query,
            total=result.total,
            results=[SearchHit(**asdict(hit)) for hit in result.results],
            warnings=list(result.warnings),
        )

    @server.tool(annotations=READ_ONLY)
    def read_doc(
        ref: Annotated[str, Field(description="A ref from search_docs or list_docs.")],
    ) -> DocText:
        """Read the full text of a page (ref 'source:path') or a section ('source:path#anchor')."""
        with _tool_errors():
            doc = index.read(ref)
        return DocText(**asdict(doc))

    @server.tool(annotations=READ_ONLY)
    def list_docs(
        source: Annotated[str | None, Field(description=f"Only this source ({sources}).")] = None,
    ) -> DocList:
        """List every page with its title, url, ref and section outline."""
        with _tool_errors():
            pages = index.outline(source)
        entries = [
            PageEntry(
                ref=p.ref,
                title=p.title,
                url=p.url,
                source=p.source,
                description=p.description,
                sections=[OutlineSection(**asdict(s)) for s in p.sections],
            )
            for p in pages
        ]
        return DocList(total=len(entries), pages=entries)

    return server


def serve(index: DocIndex, *, http: bool = False, host: str = "127.0.0.1", port: int = 8000) -> None:
    server = create_server(index)
    if http:
        server.run(transport="streamable-http", host=host, port=port)
    else:
        server.run()

