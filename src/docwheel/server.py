"""MCP wiring only: tool names, schemas, descriptions and resources, mapped onto ``Answers``.

What the tools answer (models, text renderings, token budgets) lives in ``answers``, cursors
and cutting in ``paging``, HTTP hosting in ``web``. Every answer carries a readable text
rendering (what most clients show the model) and the same data as structured content with
an output schema. Every ``DocwheelError`` becomes a ``ToolError`` whose text the model can
act on.
"""

# No `from __future__ import annotations`: the SDK evaluates tool signatures, and the
# descriptions below close over this index's source names.

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    ListResourcesResult,
    PaginatedRequestParams,
    Resource,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field

from . import __version__
from .answers import (
    Answer,
    Answers,
    DocList,
    DocText,
    FetchedDoc,
    SearchDocsResult,
    SearchResults,
    Snapshot,
)
from .library import Docs
from .errors import DocwheelError
from .paging import (
    DEFAULT_MAX_TOKENS,
    MAX_CURSOR_LENGTH,
    MAX_MAX_TOKENS,
    MIN_MAX_TOKENS,
    CursorError,
)

ToolSet = Literal["docs", "search-fetch"]
TOOL_SETS: tuple[str, ...] = ("docs", "search-fetch")
PAGE_URI = "docs://{source}/{+path}"
RESOURCES_PER_LIST = 500

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

INSTRUCTIONS = """\
This server searches a frozen, offline snapshot of official documentation: {label}.
Use it to answer questions about these docs instead of relying on memory, since they match
the version the user runs:
1. Call search_docs with a few words or the user's question; filter by source, or by
   document_type (reference, changelog, tutorial, ...) for a kind of page, if useful.
2. Call read_doc with a result's ref to read the whole section or page before answering
   when the snippet is not enough.
3. Cite the url of every result you rely on.
Call list_docs to browse the pages, and describe_docs to tell the user which docs version
and sources you are answering from. Answers are cut to max_tokens; when one says
truncated, call the same tool again with the same arguments and cursor=next_cursor.
"""

SEARCH_FETCH_INSTRUCTIONS = """\
This server searches a frozen, offline snapshot of official documentation: {label}.
Call search with a few words or a question, then fetch with a result's id to read it.
Cite the url of every document you rely on.
"""

MaxTokens = Annotated[
    int,
    Field(
        ge=MIN_MAX_TOKENS,
        le=MAX_MAX_TOKENS,
        description=(
            f"Size limit of the answer in tokens ({MIN_MAX_TOKENS}-{MAX_MAX_TOKENS}, estimated as "
            "4 characters per token). Longer answers are cut and continue with next_cursor."
        ),
    ),
]
Cursor = Annotated[
    str | None,
    Field(
        max_length=MAX_CURSOR_LENGTH,
        description="next_cursor from the previous answer of this tool, to continue it.",
    ),
]


def create_server(index: Docs, *, tools: ToolSet = "docs") -> MCPServer:
    """An MCP server over ``index``: the docs tools (or search and fetch), and page resources."""
    if tools not in TOOL_SETS:
        raise ValueError(f"tools must be one of {', '.join(TOOL_SETS)}, not {tools!r}")
    answers = Answers(index)
    template = INSTRUCTIONS if tools == "docs" else SEARCH_FETCH_INSTRUCTIONS
    server = MCPServer(
        name=f"docwheel ({answers.name})",
        version=__version__,
        instructions=template.format(label=answers.label),
    )
    if tools == "docs":
        _add_docs_tools(server, answers)
    else:
        _add_search_fetch_tools(server, answers)
    _add_page_resources(server, answers)
    return server


def _call(answer: Callable[[], Answer]) -> CallToolResult:
    """Run one answer: its text and its data as the result, a DocwheelError as a tool error."""
    try:
        data, text = answer()
    except DocwheelError as exc:
        raise ToolError(str(exc)) from None
    # Built here rather than by the SDK, whose text for a pydantic return is a JSON dump.
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=data.model_dump(mode="json"),
    )


def _add_docs_tools(server: MCPServer, answers: Answers) -> None:
    sources = ", ".join(answers.index.sources)
    Source = Annotated[
        str,
        Field(
            description=f"'all', or one source: {sources}.",
            # Listed in the schema for the model; checked by the tool, whose error names them.
            json_schema_extra={"enum": ["all", *answers.index.sources]},
        ),
    ]

    versions = answers.index.versions
    listed = "; ".join(f"{name}: {', '.join(v)}" for name, v in versions.items())
    Version = Annotated[
        str | None,
        Field(
            max_length=64,
            description=(
                f"Docs version to use for versioned sources ({listed}); default: the newest."
                if versions
                else "Docs version; these docs have one version, so leave it out."
            ),
        ),
    ]

    types = answers.index.doc_types
    DocumentType = Annotated[
        str,
        Field(
            description=(
                f"'all', or the kind of page wanted: {', '.join(types)} "
                "(guide: how-to pages; reference: API, CLI and configuration reference; "
                "changelog: release notes and what's new)."
            ),
            # Listed in the schema for the model; checked by the tool, whose error names them.
            json_schema_extra={"enum": ["all", *types]},
        ),
    ]

    semantic = any(part.semantic for part in answers.index.parts)
    Mode = Annotated[
        Literal["hybrid", "lexical"] | None,
        Field(
            description=(
                "hybrid (default): match words and meaning; lexical: words only, for exact "
                "names and error messages."
                if semantic
                else "These docs are searched by words; leave it out."
            ),
        ),
    ]

    @server.tool(title="Search the docs", annotations=READ_ONLY)
    def search_docs(
        query: Annotated[
            str,
            Field(
                description="A few distinctive words or the user's question; "
                'AND, OR, NOT, "phrases", prefix* and type:reference work.'
            ),
        ],
        source: Source = "all",
        document_type: DocumentType = "all",
        version: Version = None,
        limit: Annotated[int, Field(ge=1, le=20, description="Pages to return (1-20).")] = 5,
        full_text: Annotated[
            bool, Field(description="Return each section's full text instead of a snippet.")
        ] = False,
        mode: Mode = None,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        cursor: Cursor = None,
    ) -> Annotated[CallToolResult, SearchDocsResult]:
        """Search the documentation. Use it first for any question these docs can answer.

        Returns the best-matching pages, each once with its best section: title, heading
        path, url, ref and a snippet with the matched words in **bold** (or the section's
        full text with full_text=true). Read a result in full with read_doc(ref) when the
        snippet is not enough, and cite the url of every result you use. Set document_type
        to ask for a kind of page (the reference for a name, the changelog for what changed).
        No results: try fewer or more general words, or source='all' and document_type='all'.
        """
        return _call(
            lambda: answers.search(
                query,
                source=source,
                version=version,
                limit=limit,
                full_text=full_text,
                mode=mode,
                document_type=document_type,
                max_tokens=max_tokens,
                cursor=cursor,
            )
        )

    @server.tool(title="Read a page or section", annotations=READ_ONLY)
    def read_doc(
        ref: Annotated[
            str,
            Field(
                description="A ref from search_docs or list_docs: 'source:path' for a page, "
                "'source:path#anchor' for a section; the anchor of a url (any heading's, "
                "however deep) reads the part under that heading."
            ),
        ],
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        cursor: Cursor = None,
    ) -> Annotated[CallToolResult, DocText]:
        """Read the full Markdown text of a page or of one section, by its ref.

        Use it after search_docs when a snippet is not enough, or to read a page found with
        list_docs. Returns title, heading path, url and text; cite the url. Long pages come
        in parts: when truncated is true, call again with the same ref and cursor=next_cursor.
        """
        return _call(lambda: answers.read(ref, max_tokens=max_tokens, cursor=cursor))

    @server.tool(title="List the pages", annotations=READ_ONLY)
    def list_docs(
        source: Source = "all",
        document_type: DocumentType = "all",
        version: Version = None,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        cursor: Cursor = None,
    ) -> Annotated[CallToolResult, DocList]:
        """List the pages of the documentation with their url, ref, description and section outline.

        Use it to browse when search_docs does not find the right words, or to see what the
        docs cover. Pass a page or section ref to read_doc to read it. Large docs come in
        parts: when truncated is true, call again with the same source and cursor=next_cursor.
        """
        return _call(
            lambda: answers.pages(
                source=source,
                version=version,
                document_type=document_type,
                max_tokens=max_tokens,
                cursor=cursor,
            )
        )

    @server.tool(title="Describe the docs snapshot", annotations=READ_ONLY)
    def describe_docs(
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        cursor: Cursor = None,
    ) -> Annotated[CallToolResult, Snapshot]:
        """Describe the docs snapshot this server answers from: name, version, build time, sources.

        Use it to tell the user which documentation and which version the answers come
        from, or which source names and document types search_docs and list_docs accept.
        Each source has its url or path, fetch time, SHA-256, size, page and section counts
        and its pages of each document type.
        """
        return _call(lambda: answers.describe(max_tokens=max_tokens, cursor=cursor))


def _add_search_fetch_tools(server: MCPServer, answers: Answers) -> None:
    """The shape ChatGPT connectors and deep research expect: exactly these two tools, whose
    text content is the JSON object itself."""

    @server.tool(title="Search the docs", annotations=READ_ONLY)
    def search(
        query: Annotated[str, Field(description="A few words or a question.")],
    ) -> Annotated[CallToolResult, SearchResults]:
        """Search the documentation; returns up to 10 results, each with an id, title and url.

        Pass an id to fetch to read that document, and cite its url.
        """
        return _call(lambda: answers.search_ids(query))

    @server.tool(title="Fetch a document", annotations=READ_ONLY)
    def fetch(
        id: Annotated[
            str, Field(description="An id from search (or metadata.next_id from fetch).")
        ],
    ) -> Annotated[CallToolResult, FetchedDoc]:
        """Fetch the full text of a document by the id that search returned.

        Returns id, title, text, url and metadata; cite the url. A long document comes in
        parts: when metadata.truncated is true, fetch metadata.next_id for the next part.
        """
        return _call(lambda: answers.fetch(id))


def _add_page_resources(server: MCPServer, answers: Answers) -> None:
    template = UriTemplate.parse(PAGE_URI)

    @server.resource(
        PAGE_URI,
        name="page",
        title="Documentation page",
        description=f"A page of {answers.label} as Markdown; resources/list lists them.",
        mime_type="text/markdown",
    )
    def page(source: str, path: str) -> str:
        try:
            return answers.index.read(ref=f"{source}:{path}").text
        except DocwheelError as exc:
            raise ResourceNotFoundError(str(exc)) from None

    async def list_pages(_ctx: Any, params: PaginatedRequestParams) -> ListResourcesResult:
        try:
            start = answers.start_of("resources/list", params.cursor)
        except CursorError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc)) from None
        pages = answers.outline()
        end = min(start + RESOURCES_PER_LIST, len(pages))
        return ListResourcesResult(
            resources=[
                Resource(
                    uri=template.expand({"source": p.source, "path": p.ref.partition(":")[2]}),
                    name=p.ref,
                    title=p.title,
                    description=p.description or None,
                    mime_type="text/markdown",
                )
                for p in pages[start:end]
            ],
            next_cursor=answers.cursor("resources/list", {}, end) if end < len(pages) else None,
        )

    # MCPServer lists every resource in one answer; an index can have thousands of pages,
    # so resources/list gets a handler that pages. `_lowlevel_server` is the SDK's private
    # attribute; tests/test_server.py pages through resources/list and fails if it moves.
    server._lowlevel_server.add_request_handler(
        "resources/list", PaginatedRequestParams, list_pages
    )


def serve(
    index: Docs,
    *,
    tools: ToolSet = "docs",
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    stateless: bool = False,
) -> None:
    """Serve ``index`` over stdio, or over streamable HTTP with ``http=True`` (see ``web``)."""
    server = create_server(index, tools=tools)
    if not http:
        server.run()
        return
    from .web import run_http

    run_http(server, host=host, port=port, token=token, stateless=stateless)
