"""What a reader sees of each docs generator's block markup: titles, labels and bodies kept,
markers, stubs, placeholders and line markers gone. Fixtures follow each generator's own
documentation of the syntax (MkDocs Material, pymdownx, mkdocstrings, Docusaurus, VitePress,
Starlight, MyST, Shiki/twoslash)."""

from __future__ import annotations

import pytest

from docwheel.formats.markdown import clean_body, parse_markdown, split_code


def body(text: str) -> str:
    return clean_body(text).strip("\n")


def page_text(text: str) -> str:
    page = parse_markdown(text, url="https://x.io/p", path="p", fallback_title="P")
    return "\n\n".join(s.text for s in page.sections)


def prose(text: str) -> str:
    return split_code(clean_body(text))[0]


def code(text: str) -> str:
    return split_code(clean_body(text))[1]


# -- MkDocs Material: admonitions and content tabs with indented bodies --------------------

MKDOCS = """\
# Install

!!! note "Phasellus posuere"

    Lorem ipsum dolor sit amet.

    ```console
    $ uv sync
    ```

??? tip

    A collapsed tip.

???+ warning "Open by default"
    Still a body.

!!! danger highlight blink "Don't try this at home"

    Extra classes are not words.

=== "macOS and Linux"

    Use `curl` to download the script.

=== "Windows"

    Use `irm` to download the script.
"""


def test_mkdocs_admonition_keeps_title_and_body_and_loses_the_marker():
    text = body(MKDOCS)
    assert "!!!" not in text and "???" not in text
    assert "Phasellus posuere\n\nLorem ipsum dolor sit amet." in text
    assert "Open by default\n\nStill a body." in text
    assert "Don't try this at home" in text and "highlight blink" not in text


def test_mkdocs_admonition_body_is_prose_and_its_indented_fence_is_code():
    text = body(MKDOCS)
    assert "\nLorem ipsum" in text  # de-indented: Markdown would read 4 spaces as code
    assert "\n```console\n$ uv sync\n```" in text
    assert code(MKDOCS).split("\n") == ["$ uv sync"]
    assert "A collapsed tip." in prose(MKDOCS)


def test_mkdocs_content_tabs_keep_each_label_and_its_text():
    shown = prose(MKDOCS)
    assert "macOS and Linux\n\nUse `curl` to download the script." in shown
    assert "Windows\n\nUse `irm` to download the script." in shown
    assert "===" not in shown


def test_tabs_nested_in_a_list_item_stay_in_the_item():
    text = body(
        "1.  Remove the binaries:\n\n"
        '    === "Windows"\n\n'
        "        ```powershell\n        rm $HOME\\.local\\bin\\uv.exe\n        ```\n\n"
        "        Then restart.\n\n"
        "2.  Done.\n"
    )
    assert text == (
        "1.  Remove the binaries:\n\n    Windows\n\n"
        "    ```powershell\n    rm $HOME\\.local\\bin\\uv.exe\n    ```\n\n"
        "    Then restart.\n\n2.  Done."
    )


def test_a_heading_inside_an_admonition_is_read_once_de_indented():
    page = parse_markdown(
        '!!! example "Example"\n\n    ## Inside\n\n    Words.\n',
        url="https://x.io/p",
        path="p",
        fallback_title="P",
    )
    assert [s.heading for s in page.sections] == ["", "Inside"]


# -- pymdownx.blocks and mkdocstrings ----------------------------------------------------------


def test_pymdownx_blocks_lose_their_fences_and_options_and_keep_title_and_body():
    text = body(
        "/// admonition | Some title\n    type: warning\n\nSome content\n///\n\n"
        "//// tab | Tab 1\nTab body\n////\n\n"
        "/// html | div\n    attrs: {class: wide}\n\nIn a div.\n///\n"
    )
    assert text == "Some title\n\nSome content\n\nTab 1\n\nTab body\n\nIn a div."


def test_mkdocstrings_stub_and_its_options_never_become_words():
    text = body(
        "Before.\n\n::: my_package.my_module.MyClass\n    options:\n      show_source: false\n\n"
        "::: my_package\n    handler: python\n\nAfter.\n"
    )
    assert text == "Before.\n\nAfter."


# -- Docusaurus, Starlight and VitePress containers ------------------------------------------

CONTAINERS = """\
:::tip[Did you know?]{icon="heart"}
Starlight asides keep their title.
:::

:::note{icon="star"}
No title here.
:::

::: warning IMPORTS ARE NOT AVAILABLE
VitePress title.
:::

::: code-group
```bash [npm]
npm install -D vitest
```
:::

:::: tabs key:provider
== Playwright
Playwright text.
== WebdriverIO
WebdriverIO text.
::::
"""


def test_containers_keep_titles_and_lose_markers_icons_and_tab_options():
    assert prose(CONTAINERS).split("\n") == [
        "Did you know?",
        "Starlight asides keep their title.",
        "",
        "No title here.",
        "",
        "IMPORTS ARE NOT AVAILABLE",
        "VitePress title.",
        "",
        "",
        "Playwright",
        "Playwright text.",
        "WebdriverIO",
        "WebdriverIO text.",
    ]


def test_fence_info_is_not_body_text():
    shown, samples = split_code(body(CONTAINERS))
    assert "[npm]" not in shown and "npm" not in shown.split()
    assert samples == "npm install -D vitest"


def test_docusaurus_tab_items_keep_their_label_or_value():
    text = body(
        '<Tabs groupId="pm">\n<TabItem value="npm">\n\nnpm text\n\n</TabItem>\n'
        '<TabItem value="module" label="Module worker">\n\nmodule text\n\n</TabItem>\n</Tabs>\n'
    )
    assert text.split() == ["npm", "npm", "text", "Module", "worker", "module", "text"]


# -- MyST ---------------------------------------------------------------------------------


def test_myst_fenced_directives_read_as_their_title_and_body():
    text = body(
        "(install-label)=\n## Install\n\n"
        "```{note} A MyST title\n:class: dropdown\n\nMyST body.\n```\n\n"
        "````{tip}\nNested sample:\n\n```python\nprint(1)\n```\n````\n\n"
        "```{toctree}\n:maxdepth: 2\n\nintro\nusage\n```\n\n"
        "```{code-block} python\nx = 1\n```\n"
    )
    assert text == (
        '<a id="install-label"></a>\n## Install\n\nA MyST title\n\nMyST body.\n\nNested sample:\n\n'
        "```python\nprint(1)\n```\n\n```{code-block} python\nx = 1\n```"
    )


def test_a_myst_label_is_an_anchor_of_the_heading_it_stands_before():
    from docwheel.formats.markdown import parse_markdown

    page = parse_markdown(
        "# T\n\n(install_label)=\n## Install\n\nx\n", url="u", path="p", fallback_title="T"
    )
    (install,) = page.sections[1:]
    assert install.text == "x"  # the target line is no word of the section
    assert [(a.anchor, a.heading) for a in install.anchors] == [("install-label", "Install")]


def test_myst_roles_read_as_sphinx_shows_them():
    assert prose(
        "See {ref}`the install guide <install-label>`, {doc}`intro`, "
        "{func}`~flask.url_for` and {py:class}`flask.Flask`.\n"
    ) == "See the install guide, intro, `url_for` and `flask.Flask`."


def test_myst_colon_fence_directive_keeps_its_title():
    assert prose(":::{warning} Careful\n:class: big\nBody.\n:::\n") == "Careful\n\nBody."


# -- includes and placeholders ------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        '--8<-- "docs/reference/.preview-features.md"',
        "--8<-- 'CONTRIBUTING.md'",
        ";--8<-- \"escaped.md\"",
        "<<< @/snippets/snippet.js{2} [snippet.js]",
        "<<< ./snippets/benchmark-table.ansi",
        "{* ../../docs_src/first_steps/tutorial001.py hl[3] *}",
        "<!--@include: ./parts/basics.md{3,}-->",
    ],
)
def test_an_unresolved_include_line_is_dropped(line):
    assert body(f"Before.\n\n{line}\n\nAfter.\n") == "Before.\n\nAfter."


def test_an_unresolved_snippet_block_is_dropped_and_so_is_one_in_code():
    assert body("A.\n\n--8<--\nfile1.md\nfile2.md\n--8<--\n\nB.\n") == "A.\n\nB."
    assert code('```python\n--8<-- "examples/x.py"\nprint(1)\n```\n') == "print(1)"


def test_template_placeholders_outside_code_never_become_words():
    shown, samples = split_code(
        body(
            "Install prettier@%PRETTIER_VERSION% with {{ site.tool }}.\n\n"
            "{% include 'note.md' %}\n\n"
            "Windows keeps `%APPDATA%` and `{{ x }}` in code spans.\n\n"
            "```\nprettier@%PRETTIER_VERSION%\n```\n"
        )
    )
    assert shown == "Install prettier@ with.\n\nWindows keeps `%APPDATA%` and `{{ x }}` in code spans."
    assert samples == "prettier@%PRETTIER_VERSION%"


# -- code line markers ----------------------------------------------------------------------


def test_shiki_line_markers_leave_the_code_they_annotate():
    assert code(
        "```ts\nexport default defineConfig({\n  define: { // [!code ++]\n"
        "    'import.meta.vitest': 'undefined', // [!code --]\n  }, # [!code focus]\n"
        "  x: 1, <!-- [!code error] -->\n})\n```\n"
    ) == (
        "export default defineConfig({\n  define: {\n    'import.meta.vitest': 'undefined',\n"
        "  },\n  x: 1,\n})"
    )


def test_a_marker_alone_on_its_line_leaves_no_line():
    assert code("```ts\n// [!code word:'validation']\ntest('validation')\n```\n") == (
        "test('validation')"
    )


def test_a_jsx_style_object_is_not_a_placeholder():
    text = body('Click <img src="/a.png" style={{display: "inline"}} /> here.')
    assert text == 'Click <img src="/a.png" style={{display: "inline"}} /> here.'


def test_twoslash_directives_and_cut_code_are_not_shown():
    assert code(
        "```ts twoslash [a.ts]\n// @errors: 2769\n// @filename: setup.ts\nimport { x } from 'y'\n"
        "// ---cut---\nconst value = x()\n//    ^?\n// ---cut-start---\nhidden()\n"
        "// ---cut-end---\nshown()\n```\n"
    ) == "const value = x()\nshown()"


def test_cut_markers_outside_a_twoslash_fence_are_code():
    assert code("```ts\n// ---cut---\nconst a = 1\n```\n") == "// ---cut---\nconst a = 1"


def test_the_stored_text_is_what_read_doc_returns_without_markers():
    stored = page_text('!!! note "Heads up"\n\n    Read this.\n\n--8<-- "missing.md"\n')
    assert stored == "Heads up\n\nRead this."


def test_quoted_content_tabs_stay_tabs_after_a_tabs_container():
    text = body('::: tabs\n== A\nA text\n:::\n\n=== "pip"\n\n    pip text\n')
    assert text == "A\nA text\n\npip\n\npip text"


def test_alert_markers_abbreviations_and_attribute_lists_are_not_words():
    text = body(
        "> [!IMPORTANT]\n> Read this first.\n\n"
        '![Run Result](../assets/run.png){: style="height:50px;width:150px"}\n\n'
        "[Get started](install.md){ .md-button .md-button--primary }\n\n"
        "A paragraph with a class.\n{: .lead }\n\n"
        "*[HTML]: Hyper Text Markup Language\n\n"
        "## Install {#setup}\n\n"
        "Rust prints `{:?}` and a set {a, b} stays.\n"
    )
    assert text == (
        ">\n> Read this first.\n\n![Run Result](../assets/run.png)\n\n[Get started](install.md)\n\n"
        "A paragraph with a class.\n\n## Install {#setup}\n\n"
        "Rust prints `{:?}` and a set {a, b} stays."
    )
