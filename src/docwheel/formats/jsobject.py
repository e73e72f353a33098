"""Read the literal parts of a JavaScript/TypeScript config file (a sidebar, a flag).

Docs generators keep their navigation in code (``sidebar: [...]`` in
``.vitepress/config.ts``, ``astro.config.mjs``, ``sidebars.js``). Most of it is object and
array literals of strings; this reads those and turns any other expression (a call, a
variable, a template with ``${}``) into None, so a config that computes part of its
sidebar still gives the part it writes out. It never runs code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)+", re.S)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_MAX_DEPTH = 60


class _Reader:
    def __init__(self, text: str, pos: int):
        self.text = text
        self.pos = pos

    def skip(self) -> None:
        m = _SPACE.match(self.text, self.pos)
        if m:
            self.pos = m.end()

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos : self.pos + 1]

    def value(self, depth: int = 0) -> object:
        if depth > _MAX_DEPTH:
            raise ValueError("nested too deep")
        ch = self.peek()
        if ch == "{":
            return self._object(depth)
        if ch == "[":
            return self._array(depth)
        if ch in "'\"`":
            text = self._string()
            return text if self._expression_ends() else self._skip_expression()
        m = _NUMBER.match(self.text, self.pos)
        if m and self._word_ends(m.end()):
            self.pos = m.end()
            return float(m.group()) if "." in m.group() else int(m.group())
        m = _IDENT.match(self.text, self.pos)
        if m and m.group() in ("true", "false", "null") and self._word_ends(m.end()):
            self.pos = m.end()
            return {"true": True, "false": False, "null": None}[m.group()]
        return self._skip_expression()

    def _word_ends(self, end: int) -> bool:
        saved, self.pos = self.pos, end
        ok = self._expression_ends()
        self.pos = saved
        return ok

    def _expression_ends(self) -> bool:
        return self.peek() in (",", "}", "]", ")", ";", "")

    def _skip_expression(self) -> None:
        """Skip to the end of an expression we do not read, brackets balanced."""
        depth = 0
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch in "'\"`":
                self._string()
                continue
            if ch == "/" and self.text[self.pos : self.pos + 2] in ("//", "/*"):
                self.skip()
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    return None
                depth -= 1
            elif ch in ",;" and depth == 0:
                return None
            self.pos += 1
        return None

    def _string(self) -> str | None:
        quote = self.text[self.pos]
        out: list[str] = []
        self.pos += 1
        computed = False
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\":
                out.append(self.text[self.pos + 1 : self.pos + 2])
                self.pos += 2
                continue
            if ch == quote:
                self.pos += 1
                return None if computed else "".join(out)
            if quote == "`" and self.text.startswith("${", self.pos):
                computed = True
            out.append(ch)
            self.pos += 1
        return None

    def _object(self, depth: int) -> dict:
        self.pos += 1
        found: dict = {}
        while True:
            ch = self.peek()
            if ch == "}":
                self.pos += 1
                return found
            if ch == "":
                return found
            if self.text.startswith("...", self.pos):
                self.pos += 3
                self._skip_expression()
            else:
                key = self._key()
                if self.peek() == ":":
                    self.pos += 1
                    value = self.value(depth + 1)
                    if key is not None:
                        found[key] = value
                elif self.peek() == "(":  # a method: key() { ... }
                    self._skip_expression()
                # shorthand {key} has no literal value: nothing to keep
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() not in ("}", ""):
                self._skip_expression()
                if self.peek() == ",":
                    self.pos += 1

    def _key(self) -> str | None:
        ch = self.peek()
        if ch in "'\"":
            return self._string()
        if ch == "[":  # a computed key
            self._skip_expression()
            return None
        m = _IDENT.match(self.text, self.pos) or _NUMBER.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return m.group()
        self.pos += 1
        return None

    def _array(self, depth: int) -> list:
        self.pos += 1
        items: list = []
        while True:
            ch = self.peek()
            if ch == "]":
                self.pos += 1
                return items
            if ch == "":
                return items
            if self.text.startswith("...", self.pos):
                self.pos += 3
                self._skip_expression()
            else:
                items.append(self.value(depth + 1))
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() not in ("]", ""):
                self._skip_expression()
                if self.peek() == ",":
                    self.pos += 1


def read_value_after(text: str, keys: Sequence[str]) -> object:
    """The literal value after the first ``key:``, ``key =`` or ``key`` (for
    ``export default``) of ``keys`` in ``text``; None when there is none or it is not a
    literal. A call wrapping it (``defineConfig({...})``) is looked through."""
    for key in keys:
        pattern = re.escape(key) + (r"\s*" if " " in key or "." in key else r"\s*[:=]\s*")
        for m in re.finditer(r"(?<![\w$.])" + pattern, text):
            reader = _Reader(text, m.end())
            if " " in key or "." in key:
                reader.skip()
                if reader.peek() == "=":
                    reader.pos += 1
            reader.skip()
            # look through wrappers such as defineConfig( or withPwa(
            while True:
                w = re.compile(r"[A-Za-z_$][\w$.]*\s*\(").match(text, reader.pos)
                if not w:
                    break
                reader.pos = w.end()
                reader.skip()
            try:
                value = reader.value()
            except (ValueError, RecursionError):
                continue
            if value is not None:
                return value
    return None


def read_literal(text: str) -> object:
    """The literal value that ``text`` starts with (None if it is not one)."""
    try:
        return _Reader(text, 0).value()
    except (ValueError, RecursionError):
        return None
