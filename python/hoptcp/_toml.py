"""Small TOML helpers: parsing with a clear error, and Python values as TOML literals."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    from pathlib import Path  # pathlib (with urllib) is a sixth of the command line's fast lane

TOMLDecodeError = tomllib.TOMLDecodeError


#: the largest scenario or spec file read (an explicit topology of a million
#: nodes is about 30 MB); anything longer is refused before it is read
MAX_FILE_BYTES = 64 * 1024 * 1024


def read_file(path: str | Path, what: str, error: type[Exception]) -> str:
    """The text of a scenario or spec file; a missing, unreadable or directory
    path, anything but a regular file (a device such as /dev/zero, a FIFO, a
    socket: they may never end) and a file over ``MAX_FILE_BYTES`` raise
    ``error`` with one line naming ``what`` and the path."""
    import os
    import stat

    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait for one.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise error(f"{what} {path} is a directory, not a file") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}") from None
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        os.close(fd)
        raise error(f"{what} {path} is a directory, not a file")
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(st.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode)
                    or stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
            raise error(f"{what} {path} is {kind}, not a regular file; give a TOML file "
                        f"(at most {MAX_FILE_BYTES // 2**20} MiB)")
        if st.st_size > MAX_FILE_BYTES:
            raise error(f"{what} {path} is {st.st_size:,} bytes; the limit is {MAX_FILE_BYTES // 2**20} MiB")
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise error(f"cannot read {what} {path}: {exc.strerror}") from None
    if len(data) > MAX_FILE_BYTES:  # it grew while being read
        raise error(f"{what} {path} is over the limit of {MAX_FILE_BYTES // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not a UTF-8 text file (byte {exc.start}: {exc.reason}); "
                    "scenarios and specs are TOML text") from None


def loads(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def literal(value: Any) -> str:
    """Render a Python value as a TOML literal (the override format of the core)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        items = ", ".join(f"{_key(k)} = {literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    if hasattr(value, "item") and not hasattr(value, "__len__"):  # numpy scalar
        return literal(value.item())
    if isinstance(value, (list, tuple, range)) or hasattr(value, "tolist"):
        seq = value.tolist() if hasattr(value, "tolist") else list(value)
        return "[" + ", ".join(literal(v) for v in seq) + "]"
    raise TypeError(f"cannot express {value!r} ({type(value).__name__}) as a TOML value")


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _key(k: Any) -> str:
    k = str(k)
    if k and all(c.isalnum() or c in "-_" for c in k) and k.isascii():
        return k
    return _string(k)


def dumps(doc: Mapping[str, Any]) -> str:
    """Serialise a parsed TOML document back to text (used for inline scenarios)."""
    import tomli_w

    return tomli_w.dumps(dict(doc))


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested TOML tables -> dotted keys (``{"tcp": {"max_window": 3}}`` -> ``tcp.max_window``)."""
    flat: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            flat.update(flatten(v, key + "."))
        else:
            flat[key] = v
    return flat
