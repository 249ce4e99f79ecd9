"""Source bytes -> text, exactly as Python reads a module file.

The one place source bytes become text: a PEP 263 coding cookie and a UTF-8 BOM are
honoured, decoding is strict, and NUL bytes are refused (as CPython 3.11+ does). A
file Python would refuse is an `UndecodableSource` naming the file and line, which
callers report as a diagnostic for that file. Line numbers are unchanged: the cookie
line stays in the text (libcst accepts it in a str), only a BOM is dropped.
"""
from __future__ import annotations

import io
import tokenize

from extractor.errors import SourceError


class UndecodableSource(SourceError):
    """Python would refuse to read the file: bad bytes, unknown encoding, NUL byte."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


def decode_source(data: bytes, path: str) -> str:
    """The text of module file `path` whose bytes are `data`."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not exc.msg.startswith("invalid or missing encoding declaration"):
            raise UndecodableSource(path, 0, exc.msg) from None  # unknown encoding, BOM against cookie
        encoding = "utf-8"  # a first line that is not UTF-8: the decode below says where
    try:
        text = data.decode(encoding)  # strict; a cookie naming a binary codec (hex) is a LookupError
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start:exc.start + 1].hex()
        raise UndecodableSource(
            path, data.count(b"\n", 0, exc.start) + 1, f"not valid {encoding}: byte 0x{byte} ({exc.reason})"
        ) from None
    except LookupError as exc:
        raise UndecodableSource(path, 0, str(exc)) from None
    if "\0" in text:
        nul = text.index("\0")
        raise UndecodableSource(path, text.count("\n", 0, nul) + 1, "source code cannot contain null bytes")
    return text
