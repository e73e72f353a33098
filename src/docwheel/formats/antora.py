"""Antora: a docs component whose ``antora.yml`` (component version descriptor) sits in the
docs folder or above it, read as Antora publishes it.

The rules are Antora's own documentation (docs.antora.org: standard directories, module and
version URL segments, navigation files, resource ids, ``asciidoc.attributes``):

- pages are the AsciiDoc files of a module's ``pages`` family,
  ``modules/<module>/pages/**/*.adoc``; ``partials``, ``examples``, ``images`` and
  ``attachments`` are no pages, nor is a file or folder whose name starts with ``_`` or ``.``;
- a page is served at ``<component>/<version>/<module>/<page>.html``: the ``ROOT`` module
  has no segment, nor does a version of ``~`` (or a component named ``ROOT``), and
  ``index.adoc`` serves its folder;
- the descriptor's ``nav:`` files are navigation, not pages: each list's title and the
  items above an ``xref:`` are the page's groups, the xref's text its title;
- ``include::partial$x.adoc[]`` (``example$``, ``page$``, ``module:partial$…``) resolves in
  the component, and ``asciidoc.attributes`` are every page's attributes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from .asciidoc_inline import inline, plain_text
from .asciidoc_pre import substitute
from .site import Generator, Navigation, Settings, Warn
from .summary import read_text

_FAMILIES = {"page": "pages", "partial": "partials", "example": "examples",
             "image": "images", "attachment": "attachments"}
_NAV_ITEM = re.compile(r"^(\*{1,5})[ \t]+(.*?)[ \t]*$")
_NAV_XREF = re.compile(r"xref:([^\[\s]+)\[([^\]]*)\]")
_RESOURCE = re.compile(r"^(?:(?P<version>[^@:$]+)@)?(?:(?P<component>[^@:$]+):)?(?:(?P<module>[^@:$]+):)?(?:(?P<family>[a-z]+)\$)?(?P<path>[^@:$]+)$")


@dataclass(frozen=True)
class AntoraSettings(Settings):
    """What ``antora.yml`` says: the component's folder (the descriptor's), where the docs
    folder is inside it, the URL segments and the pages' attributes."""

    base: Path | None = None
    prefix: str = ""  # the docs folder relative to ``base`` ("" when it is ``base``)
    component: str = ""
    version: str = ""  # "" when the version has no URL segment
    attributes: tuple[tuple[str, str | None], ...] = ()
    nav: tuple[str, ...] = ()

    def full(self, rel: str) -> str:
        """``rel`` (from the docs folder) as a path from the component's folder."""
        return posixpath.normpath(posixpath.join(self.prefix, rel)) if self.prefix else rel


class Antora(Generator):
    name = "antora"
    config_files = ("antora.yml",)
    anchors = "asciidoctor"  # each page's headings carry their ids (formats.asciidoc) too
    asciidoc = True

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        if config is None:
            found = _find_descriptor(root)
            if found is None:
                warn("antora.yml: not found; pages are read under modules/*/pages/ as in a component named by the folder")
                return AntoraSettings(base=root, component=root.name)
            config = found
        descriptor = _descriptor(config, warn)  # one that cannot be read still names Antora
        if descriptor is not None and not descriptor.get("name"):
            warn(f"{config.name}: no name: the component is named by its folder")
        descriptor = descriptor or {}
        base = config.parent
        try:
            prefix = root.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            prefix = ""
        name = str(descriptor.get("name") or base.name)
        version = descriptor.get("version", "")
        if version is True:
            warn("antora.yml: version: true takes its value from the git branch, which a folder does not name; pages have no version segment")
        if version is None or version is True or version is False:
            version = ""  # ~: the component version has no URL segment
        attrs = {  # the intrinsic attributes Antora sets on every page
            "env": "site", "env-site": "", "site-gen": "antora", "site-gen-antora": "",
            "page-component-name": name,
            "page-component-version": str(version) or "~",
            "page-component-title": str(descriptor.get("title") or name),
        }
        asciidoc = descriptor.get("asciidoc")
        given = asciidoc.get("attributes") if isinstance(asciidoc, dict) else None
        for key, value in (given or {}).items() if isinstance(given, dict) else ():
            attrs[str(key).lower()] = _attribute(value)
        nav = descriptor.get("nav") or []
        return AntoraSettings(
            base=base,
            prefix="" if prefix == "." else prefix,
            component=name,
            version=str(version),
            attributes=tuple(attrs.items()),
            nav=tuple(str(n) for n in nav if isinstance(n, str)) if isinstance(nav, list) else (),
        )

    def is_page(self, rel: str, settings: Settings) -> bool:
        s = _settings(settings)
        parts = s.full(rel).split("/")
        if len(parts) < 4 or parts[0] != "modules" or parts[2] != "pages":
            return False
        if any(part.startswith(("_", ".")) for part in parts[3:]):
            return False
        return parts[-1].lower().endswith(".adoc") and super().is_page(rel, settings)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        s = _settings(settings)
        parts = s.full(rel).split("/")
        module, page = (parts[1], "/".join(parts[3:])) if len(parts) >= 4 else ("ROOT", rel)
        page = page[: -len(".adoc")] if page.lower().endswith(".adoc") else page
        segments = [seg for seg in ("" if s.component == "ROOT" else s.component, s.version) if seg]
        if module != "ROOT":
            segments.append(module)
        if page == "index" or page.endswith("/index"):
            return "/".join([*segments, page[: -len("index")]]).rstrip("/") + "/"
        return "/".join([*segments, page]) + ".html"

    def ref_path(self, rel: str, settings: Settings) -> str:
        """The page's address as its ref (``acme/2.0/admin/users``), one per published page
        whichever folder of the component the sources file names."""
        address = self.url_path(rel, {}, settings)
        return address + "index.adoc" if address.endswith("/") or not address else address.removesuffix(".html") + ".adoc"

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return url_path  # the navigation's xrefs are turned into the same addresses

    def asciidoc_attributes(self, rel: str, settings: Settings) -> Mapping[str, str | None]:
        s = _settings(settings)
        parts = s.full(rel).split("/")
        attrs = dict(s.attributes)
        if len(parts) >= 4 and parts[0] == "modules":
            attrs["page-module"] = parts[1]
            attrs["page-relative-src-path"] = "/".join(parts[3:])
        return attrs

    def include_path(self, target: str, rel: str, settings: Settings, root: Path) -> Path | None:
        s = _settings(settings)
        if s.base is None or "$" not in target:
            return _inside(super().include_path(target, rel, settings, s.base or root), s.base)
        m = _RESOURCE.match(target)
        if m is None or m.group("family") not in _FAMILIES:
            return None
        component, module = _coordinates(m)
        if component and component != s.component:
            return None  # another component's file: not in this folder
        parts = s.full(rel).split("/")
        module = module or (parts[1] if len(parts) >= 2 and parts[0] == "modules" else "ROOT")
        path = (s.base / "modules" / module / _FAMILIES[m.group("family")] / m.group("path")).resolve()
        return _inside(path, s.base)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        s = _settings(self.settings(config, root, lambda message: None))
        if s.base is None or not s.nav:
            return None
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        attrs = dict(s.attributes)
        for nav in s.nav:
            file = s.base / nav
            text = read_text(file, warn) if file.is_file() else None
            if text is None:
                warn(f"{nav}: the navigation file antora.yml names is missing")
                continue
            parts = nav.split("/")
            module = parts[1] if len(parts) >= 3 and parts[0] == "modules" else "ROOT"
            for target, labels, shown in read_nav(text, attrs):
                address = self._address(target, module, s)
                if address is None:
                    continue
                groups.setdefault(address, labels)
                if shown:
                    titles.setdefault(address, shown)
        return Navigation(file=", ".join(s.nav), groups=groups, titles=titles)

    def _address(self, target: str, module: str, s: AntoraSettings) -> str | None:
        """The address of the page an xref in a nav file names, as ``url_path`` gives it."""
        target = target.split("#", 1)[0]
        m = _RESOURCE.match(target)
        if m is None or not target.endswith(".adoc"):
            return None
        if m.group("family") not in (None, "page"):
            return None
        if m.group("version") and m.group("version") != (s.version or "~"):
            return None
        component, mod = _coordinates(m)
        if component and component != s.component:
            return None
        rel = f"modules/{mod or module}/pages/{m.group('path')}"
        probe = AntoraSettings(component=s.component, version=s.version)
        return self.url_path(rel, {}, probe)



def _coordinates(m: re.Match) -> tuple[str | None, str | None]:
    """(component, module) of a resource id: one coordinate before the path is the module
    (``admin:users.adoc``), two are component and module."""
    component, module = m.group("component"), m.group("module")
    if component and not module:
        return None, component
    return component, module


def read_nav(text: str, attrs: Mapping[str, str | None]) -> list[tuple[str, tuple[str, ...], str]]:
    """(xref target, labels of the items above it, its link text) for each xref in a
    navigation file: a list's ``.Title`` is its top label, then each enclosing item's text."""
    values = {k: v for k, v in attrs.items() if v is not None}
    out = []
    title = ""
    stack: list[str] = []  # labels of the open items, by depth
    comment = False
    for raw in text.split("\n"):
        line = raw.rstrip()
        if re.fullmatch(r"/{4,}", line):
            comment = not comment
            continue
        if comment or line.startswith("//"):
            continue
        if m := re.match(r"^\.([^\s.].*)$", line):
            title, stack = _text(m.group(1), values), []
            continue
        m = _NAV_ITEM.match(line)
        if not m:
            continue
        depth, content = len(m.group(1)), m.group(2)
        del stack[depth - 1 :]
        xref = _NAV_XREF.search(content)
        labels = tuple(label for label in (title, *stack) if label)
        shown = _text(xref.group(2), values) if xref else _text(content, values)
        if xref:
            out.append((substitute(xref.group(1), values), labels, shown))
        while len(stack) < depth - 1:
            stack.append("")
        stack.append(shown)
    return out


def _text(markup: str, attrs: Mapping[str, str]) -> str:
    return plain_text(inline(markup.strip(), attrs))


def _attribute(value: object) -> str | None:
    """An ``asciidoc.attributes`` value: true sets it empty, false unsets it, a trailing
    ``@`` (soft set, which a page may override) is not part of the value."""
    if value is True or value is None:
        return ""
    if value is False:
        return None
    text = str(value)
    return text[:-1] if text.endswith("@") else text


def _settings(settings: Settings) -> AntoraSettings:
    return settings if isinstance(settings, AntoraSettings) else AntoraSettings()


def _inside(path: Path | None, base: Path | None) -> Path | None:
    if path is None or base is None:
        return path
    return path if path.is_relative_to(base.resolve()) else None


def _find_descriptor(root: Path) -> Path | None:
    folder = root
    for _ in range(4):
        if (folder / "antora.yml").is_file():
            return folder / "antora.yml"
        folder = folder.parent
    return None


def _descriptor(config: Path, warn: Warn) -> dict | None:
    try:
        loaded = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        warn(f"{config.name}: cannot be read ({type(exc).__name__}); read as a component named by its folder")
        return None
    if not isinstance(loaded, dict):
        warn(f"{config.name}: not a mapping of keys; read as a component named by its folder")
        return None
    return loaded


GENERATOR = Antora()
