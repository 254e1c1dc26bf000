"""Reading Swift source as text: comments and string contents blanked, brackets matched, functions found.

Shared by scripts/check-tests and scripts/mutate (both Python, no Swift parser on this machine): good enough for
the code swift-format writes, never a compiler.
"""

import re


def mask(text):
    """Returns the text with comments and string contents blanked (same length, newlines kept) and the
    string literals' spans as (start, end, interpolated)."""
    out = list(text)
    strings = []
    n = len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    def code(i, closing):
        """Scans code from i to the `)` that closes an interpolation (closing) or to the end; returns the end."""
        depth = 0
        while i < n:
            c = text[i]
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
            elif text.startswith("/*", i):
                j, level = i + 2, 1
                while j < n and level:
                    if text.startswith("/*", j):
                        level, j = level + 1, j + 2
                    elif text.startswith("*/", j):
                        level, j = level - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
            elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
                i = string(i)
            elif c == "(":
                depth, i = depth + 1, i + 1
            elif c == ")":
                if closing and depth == 0:
                    return i + 1
                depth, i = depth - 1, i + 1
            else:
                i += 1
        return i

    def string(i):
        start = i
        hashes = 0
        while text[i] == "#":
            hashes, i = hashes + 1, i + 1
        multi = text.startswith('"""', i)
        quote = '"""' if multi else '"'
        i += len(quote)
        close = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        interpolated = False
        while i < n:
            if text.startswith(escape, i):
                k = i + len(escape)
                if k < n and text[k] == "(":
                    interpolated = True
                    i = code(k + 1, closing=True)
                else:
                    i = k + 1
            elif text.startswith(close, i):
                i += len(close)
                break
            elif text[i] == "\n" and not multi:
                break
            else:
                i += 1
        blank(start + hashes + len(quote), max(start + hashes + len(quote), i - len(close)))
        strings.append((start, i, interpolated))
        return i

    code(0, closing=False)
    return "".join(out), strings


def matching(masked, i):
    """Index just past the bracket that closes the one at i."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(masked)):
        c = masked[j]
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
    return len(masked)


def split_top(masked, a, b, separators):
    """Splits masked[a:b] at separators outside brackets; returns (start, end) spans."""
    spans, depth, start, j = [], 0, a, a
    while j < b:
        c = masked[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            hit = next((s for s in separators if masked.startswith(s, j)), None)
            if hit:
                spans.append((start, j))
                start = j + len(hit)
                j = start
                continue
        j += 1
    spans.append((start, b))
    return spans


class SwiftFile:
    """A Swift source file, its masked text and its functions."""

    def __init__(self, path, root):
        self.path = path
        self.name = str(path.relative_to(root))
        self.text = path.read_text(encoding="utf-8")
        self.masked, self.strings = mask(self.text)
        self._functions = None
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    def line(self, index):
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= index:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def functions(self):
        """(name, func keyword index, body start, body end) of every function with a body."""
        if self._functions is None:
            self._functions = list(self._scan_functions())
        return self._functions

    def _scan_functions(self):
        for m in re.finditer(r"\bfunc\s+([A-Za-z_][A-Za-z_0-9]*)", self.masked):
            j, depth = m.end(), 0
            while j < len(self.masked):
                c = self.masked[j]
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif depth == 0 and c == "{":
                    yield m.group(1), m.start(), j, matching(self.masked, j)
                    break
                elif depth == 0 and c == "}":  # a protocol requirement: no body
                    break
                j += 1
