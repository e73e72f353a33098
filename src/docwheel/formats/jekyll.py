"""Jekyll (GitHub Pages, Just the Docs): a ``_config.yml`` with Jekyll settings in the docs
folder or above it.

What Jekyll's documentation says, and this module does:
- Only a file with YAML frontmatter is rendered; one without it is copied as it is, so it
  is not a page (unless the config lists the ``jekyll-optional-front-matter`` plugin).
  ``published: false`` is not rendered either.
- Files and folders starting with ``_``, ``.``, ``#`` or ``~`` are not pages (``_site``,
  ``_includes``, ``_layouts``, ``_sass``, ``_data``, ``_drafts``), except ``_posts`` (the
  blog: ``YYYY-MM-DD-title.md``) and collections the config gives ``output: true``;
  ``include:`` brings such names back, ``exclude:`` (names, globs or path prefixes) leaves
  files out.
- A page is served at ``path.html`` (``permalink: pretty``: ``path/``; a custom style ending
  in '/' likewise); ``index.md`` serves its folder; frontmatter ``permalink:`` wins. A post
  is served at ``/:categories/:year/:month/:day/:title.html`` (or the config's style), a
  collection's document at ``/:collection/:path.html`` (or the collection's ``permalink``).
- Titles: frontmatter ``title``, else the first H1.
- Just the Docs' callouts: a block after ``{: .warning }`` shows the title the config's
  ``callouts:`` gives ``warning`` above it.
- Navigation (Just the Docs): ``parent:`` and ``grand_parent:`` name the pages above a page
  by their titles; they become its groups (``Page.group``).
- Heading ids: kramdown's GFM parser (Jekyll's default ``input: GFM``) gives GitHub's;
  ``kramdown: {input: kramdown}`` gives kramdown's own (``headings.slugify_kramdown``).
  ``{: #id}`` sets one.
- Liquid, read as the page shows it (``read_liquid``): ``{% raw %}`` leaves its text as
  written, ``{% comment %}`` nothing, ``{% highlight ruby %}`` is a code block,
  ``{% include x.md %}`` is resolved by ``includes``; an HTML include shows the words of its
  parameters (``content="…"``); other tags and ``{{ … }}`` show nothing in prose
  (``blocks.drop_placeholders``), and code keeps them.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from .headings import CODE_SPAN
from .markdown import CODE, FENCE, PROSE, classify_lines, page_meta, page_path_from_url
from .site import Generator, Navigation, Settings, Warn, strip_suffix

# Settings only Jekyll's _config.yml has (a Hexo or Jupyter Book _config.yml has others).
_JEKYLL_KEYS = frozenset(
    "theme remote_theme markdown kramdown collections baseurl permalink plugins gems "
    "defaults sass highlighter markdown_ext jekyll-seo-tag just_the_docs".split()
)
_OTHER_TOOLS = frozenset(
    # Hexo
    "new_post_name source_dir public_dir post_asset_folder default_layout titlecase "
    "external_link skip_render "
    # Jupyter Book
    "execute sphinx latex parse launch_buttons bibtex_bibfiles only_build_toc_files".split()
)
_SPECIAL = (".", "_", "#", "~")
_DATED = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})-(.+)$")


@dataclass(frozen=True)
class JekyllSettings(Settings):
    """What ``_config.yml`` says about pages and their addresses."""

    permalink: str = "date"  # the style: date, pretty, ordinal, none, or a template
    collections: tuple[tuple[str, str | None], ...] = ()  # (name, permalink) with output
    # ``exclude:`` and ``include:`` as Jekyll reads them: from the site's source folder.
    site_exclude: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    optional_frontmatter: bool = False
    kramdown_input: str = "GFM"
    # Just the Docs' ``callouts:``: (class, title) of each callout that has a title.
    callouts: tuple[tuple[str, str], ...] = ()
    prefix: str = ""  # the docs folder relative to the site's source, "" when the same


class Jekyll(Generator):
    name = "jekyll"
    config_files = ("_config.yml", "_config.yaml")
    anchors = "github"
    reads_frontmatter = True

    def claims(self, config: Path) -> bool:
        """A ``_config.yml`` with a Jekyll setting and none of another tool's (Hexo and
        Jupyter Book name theirs the same); never beside a Jupyter Book ``_toc.yml``."""
        if (config.parent / "_toc.yml").is_file():
            return False
        data = _load(config)
        if not isinstance(data, dict) or _OTHER_TOOLS & set(map(str, data)):
            return False
        return bool(_JEKYLL_KEYS & set(map(str, data)))

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        if config is None:
            return JekyllSettings()
        data = _load(config)
        if data is None:
            warn(f"{config.name}: cannot be read; Jekyll defaults assumed")
            return JekyllSettings()
        try:
            prefix = root.resolve().relative_to(config.parent.resolve()).as_posix()
        except ValueError:
            prefix = ""
        prefix = "" if prefix == "." else prefix
        collections = data.get("collections")
        items = collections.items() if isinstance(collections, dict) else (
            ((c, {}) for c in collections) if isinstance(collections, list) else ()
        )
        outputs = tuple(
            (str(name), meta.get("permalink") if isinstance(meta.get("permalink"), str) else None)
            for name, meta in items
            if isinstance(meta, dict) and meta.get("output") is True
        )
        plugins = [str(p) for key in ("plugins", "gems") for p in _strings(data.get(key))]
        kramdown = data.get("kramdown") if isinstance(data.get("kramdown"), dict) else {}
        permalink = data.get("permalink")
        callouts = data.get("callouts") if isinstance(data.get("callouts"), dict) else {}
        titled = tuple(
            (str(name), str(meta["title"]).strip())
            for name, meta in callouts.items()
            if isinstance(meta, dict) and isinstance(meta.get("title"), (str, int)) and str(meta["title"]).strip()
        )
        return JekyllSettings(
            site_exclude=tuple(_strings(data.get("exclude"))),
            permalink=permalink.strip() if isinstance(permalink, str) and permalink.strip() else "date",
            collections=outputs,
            include=tuple(_strings(data.get("include"))),
            optional_frontmatter="jekyll-optional-front-matter" in plugins,
            kramdown_input=str(kramdown.get("input", "GFM")),
            callouts=titled,
            prefix=prefix,
        )

    def is_page(self, rel: str, settings: Settings) -> bool:
        s = settings if isinstance(settings, JekyllSettings) else JekyllSettings()
        site_rel = f"{s.prefix}/{rel}" if s.prefix else rel
        parts = site_rel.split("/")
        if not rel.lower().endswith((".md", ".markdown")):  # markdown_ext; .mdx, .qmd are not
            return False
        if _matches(site_rel, s.site_exclude) and not _matches(site_rel, s.include):
            return False
        if parts[-1].endswith("~"):
            return False
        outputs = {"posts"} | {name for name, _ in s.collections}
        for k, part in enumerate(parts):
            if not part.startswith(_SPECIAL) or part in s.include:
                continue
            if k < len(parts) - 1 and part.startswith("_") and part[1:] in outputs:
                continue  # the blog, or a collection with output: true
            return False
        return True

    def renders(self, text: str, settings: Settings) -> bool:
        has_head = re.match(r"\A(?:\ufeff)?---[ \t]*\r?\n", text) is not None
        if not has_head:
            return isinstance(settings, JekyllSettings) and settings.optional_frontmatter
        return True

    def unpublished(self, meta: Mapping) -> str | None:
        return "published: false" if meta.get("published") is False else None

    def anchor_style(self, settings: Settings) -> str:
        kind = settings.kramdown_input if isinstance(settings, JekyllSettings) else "GFM"
        return "kramdown" if kind.lower() == "kramdown" else "github"

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        s = settings if isinstance(settings, JekyllSettings) else JekyllSettings()
        site_rel = f"{s.prefix}/{rel}" if s.prefix else rel
        path = strip_suffix(site_rel)
        folder, _, name = path.rpartition("/")
        given = meta.get("permalink")
        placeholders = {"path": folder, "basename": name, "output_ext": ".html"}
        if isinstance(given, str) and given.strip():
            return _from_docs(_fill(given.strip(), placeholders), s.prefix)
        parts = path.split("/")
        outputs = {"posts"} | {name for name, _ in s.collections}
        collection = next((p[1:] for p in parts[:-1] if p.startswith("_") and p[1:] in outputs), None)
        if collection == "posts":
            return _from_docs(_post_url(parts, meta, s.permalink), s.prefix)
        if collection is not None:
            template = dict(s.collections).get(collection) or _suffixed("/:collection/:path", s.permalink)
            inner = "/".join(parts[parts.index("_" + collection) + 1 :])
            values = {**placeholders, "collection": collection, "path": inner, "name": name, "title": name}
            return _from_docs(_fill(template, values), s.prefix)
        if name == "index":
            return _from_docs(f"/{folder}/", s.prefix)
        return _from_docs(_fill(_suffixed("/:path/:basename", s.permalink), placeholders), s.prefix)

    def shown(self, text: str, settings: Settings) -> str:
        text = read_liquid(text)
        if isinstance(settings, JekyllSettings) and settings.callouts and "{:" in text:
            text = _callout_titles(text, dict(settings.callouts))
        return text

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        """Just the Docs' navigation: a page's ``parent:`` (and ``grand_parent:``) name the
        pages above it by title, outermost first, read from every page's frontmatter."""
        settings = self.settings(config, root, warn)
        found: dict[str, tuple[str, str, str]] = {}  # key -> (title, parent, grand_parent)
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if not rel.lower().endswith((".md", ".markdown")) or not self.is_page(rel, settings):
                continue
            try:
                meta = page_meta(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            found[page_path_from_url(rel)] = tuple(  # type: ignore[assignment]
                str(meta.get(k) or "").strip() for k in ("title", "parent", "grand_parent")
            )
        if not any(parent for _, parent, _ in found.values()):
            return None
        parent_of = {title: parent for title, parent, _ in found.values() if title}
        groups: dict[str, tuple[str, ...]] = {}
        for key, (_title, parent, grand) in found.items():
            labels: list[str] = []
            above = parent
            while above and above not in labels and len(labels) < 6:
                labels.insert(0, above)
                above = parent_of.get(above, "")
            if grand and grand not in labels:
                labels.insert(0, grand)
            if labels:
                groups[key] = tuple(labels)
        return Navigation("frontmatter parent:", groups)


GENERATOR = Jekyll()


def _load(config: Path) -> dict | None:
    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError):
        return None
    return data if isinstance(data, dict) else {}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value if isinstance(v, (str, int))] if isinstance(value, list) else []


def _matches(site_rel: str, patterns: tuple[str, ...]) -> bool:
    """Jekyll's ``exclude``/``include`` test: a glob of the path from the site's source,
    or a prefix of it."""
    for pattern in patterns:
        pattern = pattern.lstrip("/")
        if pattern and (fnmatch.fnmatchcase(site_rel, pattern) or site_rel.startswith(pattern)):
            return True
    return False


def _suffixed(template: str, style: str) -> str:
    """Jekyll's ``add_permalink_suffix``: the ending the site's permalink style gives."""
    if style == "pretty":
        return template + "/"
    if style in ("date", "ordinal", "none", "weekdate"):
        return template + ":output_ext"
    if style.endswith("/"):
        return template + "/"
    return template + (":output_ext" if style.endswith(":output_ext") else "")


_STYLES = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}


def _post_url(parts: list[str], meta: Mapping, style: str) -> str:
    """A post's address: the date and title from its file name (frontmatter ``date:``
    wins for the date), categories from its frontmatter and the folders above ``_posts``."""
    m = _DATED.match(parts[-1])
    title = m.group(4) if m else parts[-1]
    date = _date(meta.get("date")) or (
        _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
    )
    categories = [p for p in parts[: parts.index("_posts")] if p]
    for key in ("category", "categories"):
        value = meta.get(key)
        if isinstance(value, str):
            categories += value.split()
        elif isinstance(value, list):
            categories += [str(v) for v in value if isinstance(v, (str, int)) and str(v)]
    values = {
        "categories": "/".join(dict.fromkeys(c.lower() for c in categories)),
        "title": title.replace(" ", "-"),
        "slug": title.replace(" ", "-").lower(),
        "output_ext": ".html",
    }
    if date is None:  # Jekyll refuses such a post; its address then has no date parts
        values |= dict.fromkeys(("year", "month", "day", "i_month", "i_day", "short_year", "y_day"), "")
    else:
        values |= {
            "year": f"{date.year:04d}", "month": f"{date.month:02d}", "day": f"{date.day:02d}",
            "i_month": str(date.month), "i_day": str(date.day), "short_year": f"{date.year % 100:02d}",
            "y_day": f"{date.timetuple().tm_yday:03d}",
        }
    return _fill(_STYLES.get(style, style), values)


def _date(value: object) -> dt.date | None:
    if isinstance(value, (dt.date, dt.datetime)):
        return value
    if isinstance(value, str):
        m = re.match(r"(\d{4})-(\d{1,2})-(\d{1,2})", value.strip())
        if m:
            return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return None


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _fill(template: str, values: Mapping[str, str]) -> str:
    """A permalink template with its ``:placeholders`` filled (an unknown one stays)."""
    filled = re.sub(r":([a-z_]+)", lambda m: values.get(m.group(1), m.group(0)), template)
    return re.sub(r"/{2,}", "/", filled)


def _from_docs(url: str, prefix: str) -> str:
    """A site address as one relative to the docs folder the source names."""
    url = url.lstrip("/")
    if prefix and url.startswith(prefix + "/"):
        return url[len(prefix) + 1 :]
    return url


# -- Liquid, read as the page shows it ----------------------------------------------------

_TAG = re.compile(r"\{%-?[ \t]*(raw|endraw|comment|endcomment|highlight|endhighlight)\b([^%]*?)-?%\}")
_OPEN_SENTINEL, _TAG_SENTINEL = "\ufdd1", "\ufdd2"  # `{{` and `{%` inside {% raw %}
_HTML_INCLUDE = re.compile(
    r"^([ \t]*)\{%-?[ \t]*include(?:_relative)?[ \t]+\S+"
    r"((?:[ \t]+[\w-]+=(?:\"[^\"]*\"|'[^']*'|\S+))*)[ \t]*-?%\}[ \t]*$"
)
_PARAM = re.compile(r"""([\w-]+)=(?:"([^"]*)"|'([^']*)')""")


def read_liquid(text: str) -> str:
    """A Jekyll page's source with its Liquid read as the rendered page shows it."""
    m = re.match(r"\A(---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z))", text, re.S)
    head, body = (m.group(1), text[m.end() :]) if m else ("", text)
    if "{%" not in body:
        return text
    body = _blocks(body)
    lines = body.split("\n")
    kinds = classify_lines(lines)
    out = []
    for line, kind in zip(lines, kinds):
        if kind == PROSE and "{%" in line and (inc := _HTML_INCLUDE.match(line)):
            words = [a or b for _, a, b in _PARAM.findall(inc.group(2)) if _reads_as_words(a or b)]
            line = inc.group(1) + " ".join(words) if words else ""
        if _OPEN_SENTINEL in line or _TAG_SENTINEL in line:
            line = _unprotect(line, kind)
        out.append(line)
    return head + "\n".join(out)


# A kramdown block IAL alone on its line, before the block it styles: `{: .warning }`.
_BLOCK_IAL = re.compile(r"^([ \t]*)\{:[ \t]*\.([\w-]+)[ \t]*\}[ \t]*$")


def _callout_titles(text: str, titles: Mapping[str, str]) -> str:
    """Just the Docs' callouts: a block given a callout class the config titles shows
    that title above it, as the theme draws it."""
    lines = text.split("\n")
    kinds = classify_lines(lines)
    out = []
    for k, (line, kind) in enumerate(zip(lines, kinds)):
        m = _BLOCK_IAL.match(line) if kind == PROSE and "{:" in line else None
        following = k + 1 < len(lines) and lines[k + 1].strip()
        if m and m.group(2) in titles and following:
            out += [m.group(1) + titles[m.group(2)], ""]
        else:
            out.append(line)
    return "\n".join(out)


def _reads_as_words(value: str) -> bool:
    """A parameter a page shows (``content="Mind the gap."``), not a name, path or URL."""
    return " " in value.strip() and "://" not in value and not value.startswith(("/", "./"))


def _blocks(body: str) -> str:
    """``raw`` (text kept, protected from the placeholder cleanup), ``comment`` (gone) and
    ``highlight`` (a fenced code block), in one pass, as Liquid reads its tags."""
    out: list[str] = []
    pos = 0
    for m in _TAG.finditer(body):
        if m.start() < pos:
            continue
        name, args = m.group(1), m.group(2).split()
        out.append(body[pos : m.start()])
        pos = m.end()
        if name in ("raw", "comment", "highlight"):
            end = re.compile(r"\{%-?[ \t]*end" + name + r"[ \t]*-?%\}").search(body, pos)
            inner = body[pos : end.start()] if end else body[pos:]
            pos = end.end() if end else len(body)
            if name == "raw":
                out.append(inner.replace("{{", _OPEN_SENTINEL).replace("{%", _TAG_SENTINEL))
            elif name == "highlight":
                code = inner.strip("\n")
                fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", code)), default=0) + 1)
                lang = args[0] if args else ""
                out.append(f"\n{fence}{lang}\n{code}\n{fence}\n")
        # a stray end tag shows nothing
    out.append(body[pos:])
    return "".join(out)


def _unprotect(line: str, kind: str) -> str:
    """Text a ``raw`` block kept: as written in code; in prose escaped (``{\\{``), so that
    the placeholder cleanup leaves it and the Markdown still shows ``{{``."""
    if kind in (CODE, FENCE):
        return _as_written(line)
    parts, pos = [], 0
    for m in CODE_SPAN.finditer(line):
        parts += [_escaped(line[pos : m.start()]), _as_written(m.group(0))]
        pos = m.end()
    return "".join(parts) + _escaped(line[pos:])


def _as_written(text: str) -> str:
    return text.replace(_OPEN_SENTINEL, "{{").replace(_TAG_SENTINEL, "{%")


def _escaped(text: str) -> str:
    return text.replace(_OPEN_SENTINEL, "{\\{").replace(_TAG_SENTINEL, "{\\%")
