"""Repairs for JSON produced under llama.cpp's schema grammar."""

from __future__ import annotations

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_raw_control_chars(text: str) -> str:
    """Escape raw newlines, carriage returns and tabs that sit inside JSON string literals.

    llama.cpp's JSON-schema grammar lets these characters into strings, which makes the
    output invalid JSON (a strict parser rejects it, a lenient one may drop the value).
    Characters outside strings (formatting whitespace) are left alone.
    """
    out: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            elif char in _ESCAPES:
                out.append(_ESCAPES[char])
                continue
        elif char == '"':
            in_string = True
        out.append(char)
    return "".join(out)
