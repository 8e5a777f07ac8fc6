"""Point generators: how an entry's ``grid`` and ``zip`` spell their values without writing them out.

A value list in ``[sweep.grid]``, ``[sweep.zip]`` (and their ``quick`` and side-sweep versions) is
either a literal list or a generator table:

- ``{ range = [A, B] }``: A, A+1, ..., B (both ends included);
- ``{ range = [A, B], step = S }``: A, A+S, ..., B; B must be reached exactly. The values are
  integers when A, B and S are, floats otherwise (stepped in decimal, so ``0.1`` steps give the
  numbers one would type: 0.1, 0.2, 0.3);
- an end may be ``"wstar"`` or ``"wstar + K"`` / ``"wstar - K"``: the optimal window of the point's
  chain from the core's model (``hoptcp.model("wstar", topology="chain", hops=h)``, rounded value
  ceil(h/4)), ``h`` being the ``topology.hops`` given before it in the same block; "windows 1 to
  W* + 8 on each chain" is ``"tcp.max_window" = { range = [1, "wstar + 8"] }``.

A ``zip`` may also be an array of blocks (``[[sweep.zip]]`` tables, or ``zip = [{...}, {...}]``)
whose points follow one another: within a block, keys with a list or a generator are crossed in the
order written (the first varies slowest) and keys with a single value repeat it. Every block names
the same keys. One block per arm of an experiment reads as the paper's list of configurations::

    [[sweep.zip]]                     # TCP with windows 1..32
    "flows.0.transport" = "tcp"
    "tcp.max_window" = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32]
    [[sweep.zip]]                     # then paced UDP at each rate
    "flows.0.transport" = "udp"
    "tcp.max_window" = 32

The expansion is exactly the list one would have written out (same order, values and types), so
the runs of the store are found again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from functools import cache
from typing import Any

from ..errors import SpecError

GENERATOR_KEYS = {"range", "step"}
_WSTAR = re.compile(r"wstar(?:\s*([+-])\s*(\d+))?")


def expand_table(where: str, table: Any) -> dict[str, list[Any]] | Any:
    """A ``grid`` or ``zip`` as dotted key -> list of values, generators expanded (a ``zip`` given as
    blocks is joined). Anything else (not a table) is returned as it is, for the sweep to refuse."""
    if isinstance(table, list) and table and all(isinstance(b, Mapping) for b in table):
        return _join_blocks(where, table)
    if not isinstance(table, Mapping):
        return table
    out: dict[str, Any] = {}
    for key, value in _flatten(table).items():
        out[key] = _values(f"{where}.{key}", value, {}) if _is_generator(value) else value
    return out


def _is_generator(value: Any) -> bool:
    return isinstance(value, Mapping) and "range" in value


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested tables -> dotted keys, stopping at generator tables."""
    flat: dict[str, Any] = {}
    for k, v in table.items():
        if isinstance(v, Mapping) and not _is_generator(v):
            flat.update(_flatten(v, f"{prefix}{k}."))
        else:
            flat[f"{prefix}{k}"] = v
    return flat


def _join_blocks(where: str, blocks: list[Mapping[str, Any]]) -> dict[str, list[Any]]:
    keys: list[str] | None = None
    out: dict[str, list[Any]] = {}
    for i, block in enumerate(blocks):
        bw = f"{where}[{i}]"
        flat = _flatten(block)
        if keys is None:
            keys = list(flat)
            out = {k: [] for k in keys}
        elif set(flat) != set(keys):
            missing, extra = sorted(set(keys) - set(flat)), sorted(set(flat) - set(keys))
            raise SpecError(f"{bw}: every block of a zip names the same keys; "
                            + "; ".join(p for p in (f"missing {', '.join(missing)}" if missing else "",
                                                     f"not in the first block: {', '.join(extra)}" if extra else "")
                                        if p))
        for point in _block_points(bw, flat):
            for k in keys:
                out[k].append(point[k])
    return out


def _block_points(where: str, flat: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The points of one block: lists and generators crossed in the order written."""
    points: list[dict[str, Any]] = [{}]
    for key, value in flat.items():
        kw = f"{where}.{key}"
        if isinstance(value, list) and not value:
            raise SpecError(f"{kw}: the list is empty; give at least one value")
        nxt: list[dict[str, Any]] = []
        for p in points:
            vals = (_values(kw, value, p) if _is_generator(value) else value if isinstance(value, list)
                    else [value])
            nxt.extend({**p, key: v} for v in vals)
        points = nxt
    return points


def _values(where: str, gen: Mapping[str, Any], point: Mapping[str, Any]) -> list[Any]:
    """The values of one generator table at a partial point (for ends that depend on it)."""
    unknown = set(gen) - GENERATOR_KEYS
    if unknown:
        raise SpecError(f"{where}: unknown generator key(s) {', '.join(sorted(unknown))}; a generator is "
                        "{ range = [A, B] } or { range = [A, B], step = S }")
    ends = gen["range"]
    if not isinstance(ends, list) or len(ends) != 2:
        raise SpecError(f"{where}: range = {ends!r}; expected [A, B] (both ends included)")
    a, b = (_end(where, e, point) for e in ends)
    step = gen.get("step", 1)
    if isinstance(step, bool) or not isinstance(step, (int, float)) or step <= 0:
        raise SpecError(f"{where}: step = {step!r}; expected a number > 0")
    if b < a:
        raise SpecError(f"{where}: range = [{a}, {b}]: the end is below the start")
    as_int = all(isinstance(x, int) for x in (a, b, step))
    da, db, ds = (Decimal(repr(x)) for x in (a, b, step))
    n = (db - da) / ds
    if n != n.to_integral_value():
        raise SpecError(f"{where}: range = [{a}, {b}] with step = {step} does not reach {b}")
    vals = [da + i * ds for i in range(int(n) + 1)]
    return [int(v) for v in vals] if as_int else [float(v) for v in vals]


def _end(where: str, end: Any, point: Mapping[str, Any]) -> int | float:
    if isinstance(end, (int, float)) and not isinstance(end, bool):
        return end
    m = _WSTAR.fullmatch(end.strip()) if isinstance(end, str) else None
    if m is None:
        raise SpecError(f"{where}: range end {end!r}; expected a number, \"wstar\" or \"wstar + K\"")
    hops = point.get("topology.hops")
    if not isinstance(hops, int) or isinstance(hops, bool):
        raise SpecError(f"{where}: range end {end!r} needs the chain's \"topology.hops\" given before it in the "
                        "same zip block")
    k = int(m[2] or 0)
    return _wstar(hops) + (k if m[1] != "-" else -k)


@cache
def _wstar(hops: int) -> int:
    from ..models import model

    return int(model("wstar", topology="chain", hops=hops)["wstar"]["rounded"])

