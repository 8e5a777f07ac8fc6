"""Point generators of entry sweeps (hoptcp.reproduce.points): ranges, W*-relative ends, zip blocks."""

import math

import pytest

from hoptcp import SpecError
from hoptcp.reproduce import catalogue, get_entry, parse_entry
from hoptcp.reproduce.points import expand_table


def test_range_is_inclusive_and_keeps_integers():
    got = expand_table("grid", {"tcp.max_window": {"range": [1, 5]}})
    assert got == {"tcp.max_window": [1, 2, 3, 4, 5]}
    assert all(type(v) is int for v in got["tcp.max_window"])
    assert expand_table("grid", {"a": {"range": [2, 10], "step": 4}}) == {"a": [2, 6, 10]}


def test_float_range_steps_in_decimal():
    # 0.1 + 0.1 + 0.1 is 0.30000000000000004 in binary; the generator gives the typed numbers
    got = expand_table("grid", {"x": {"range": [0.1, 0.5], "step": 0.1}})["x"]
    assert got == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert got[2] == 0.3 and all(type(v) is float for v in got)
    assert expand_table("grid", {"x": {"range": [0, 1.0], "step": 0.5}})["x"] == [0.0, 0.5, 1.0]


def test_nested_tables_stop_at_generators():
    got = expand_table("grid", {"tcp": {"max_window": {"range": [1, 3]}}, "mac": {"queue_limit": [5, 50]}})
    assert got == {"tcp.max_window": [1, 2, 3], "mac.queue_limit": [5, 50]}


def test_zip_blocks_cross_in_written_order_and_repeat_single_values():
    got = expand_table("zip", [
        {"transport": "tcp", "window": [1, 2], "rate": 0.0},
        {"transport": "udp", "rate": [1.0, 2.0], "window": [8, 32]},
    ])
    # block 1: window varies; block 2: rate slowest, then window (the order written)
    assert got["transport"] == ["tcp", "tcp", "udp", "udp", "udp", "udp"]
    assert got["window"] == [1, 2, 8, 32, 8, 32]
    assert got["rate"] == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
    assert list(got) == ["transport", "window", "rate"]  # the first block's key order


def test_wstar_end_follows_each_chain():
    got = expand_table("zip", [{"topology.hops": [3, 7, 24], "tcp.max_window": {"range": [1, "wstar + 2"]}}])
    expected_h, expected_w = [], []
    for h in (3, 7, 24):
        top = math.ceil(h / 4) + 2  # the wstar model's rounded value is ceil(h/4)
        expected_h += [h] * top
        expected_w += list(range(1, top + 1))
    assert got == {"topology.hops": expected_h, "tcp.max_window": expected_w}
    minus = expand_table("zip", [{"topology.hops": 16, "w": {"range": ["wstar - 1", "wstar"]}}])
    assert minus["w"] == [3, 4]


@pytest.mark.parametrize("table, fragment", [
    ({"w": {"range": [1]}}, "grid.w: range = [1]; expected [A, B]"),
    ({"w": {"range": [1, 10], "step": 4}}, "grid.w: range = [1, 10] with step = 4 does not reach 10"),
    ({"w": {"range": [5, 1]}}, "grid.w: range = [5, 1]: the end is below the start"),
    ({"w": {"range": [1, 5], "step": 0}}, "grid.w: step = 0; expected a number > 0"),
    ({"w": {"range": [1, 5], "by": 2}}, "grid.w: unknown generator key(s) by"),
    ({"w": {"range": [1, "wstar + 8"]}}, "grid.w: range end 'wstar + 8' needs the chain's \"topology.hops\""),
    ({"w": {"range": [1, "w* + 8"]}}, "grid.w: range end 'w* + 8'; expected a number, \"wstar\" or \"wstar + K\""),
])
def test_bad_generators_name_the_key(table, fragment):
    with pytest.raises(SpecError) as exc:
        expand_table("grid", table)
    assert fragment in str(exc.value) and "\n" not in str(exc.value)


def test_blocks_must_name_the_same_keys():
    with pytest.raises(SpecError, match=r"zip\[1\]: every block of a zip names the same keys; missing b"):
        expand_table("zip", [{"a": 1, "b": 2}, {"a": 3}])


def test_bad_generator_in_an_entry_is_one_line_naming_entry_and_key():
    doc = {"id": "t", "title": "t", "paper": "p", "scenario": "fu-chain.toml",
           "sweep": {"grid": {"tcp.max_window": {"range": [1, 10], "step": 4}}}}
    with pytest.raises(SpecError, match=r"^entry 't': grid\.tcp\.max_window: range = \[1, 10\] with step = 4 "
                                        r"does not reach 10$"):
        parse_entry(doc)


def test_fu_wstar_runs_windows_up_to_wstar_plus_8_on_every_chain():
    for quick, side in ((False, None), (False, "aodv")):
        e = get_entry("fu-wstar")
        spec = e.sweep_spec(quick) if side is None else e.side(side).sweep_spec(e.id, quick)
        by_h: dict[int, list[int]] = {}
        for p in spec.points():
            by_h.setdefault(p["topology.hops"], []).append(p["tcp.max_window"])
        for h, windows in by_h.items():
            assert windows == list(range(1, math.ceil(h / 4) + 9)), h
    assert sorted(by_h) == [24, 32]


def test_every_entry_expands_with_consistent_types():
    """Every entry's sweep, quick sweep and side sweeps expand; a key's values never mix int and
    float (a generator must not turn the integers of a hand-written list into floats)."""
    n = 0
    for e in catalogue():
        for quick in (False, True):
            specs = [e.sweep_spec(quick), *(s.sweep_spec(e.id, quick) for s in e.sides)]
            for spec in specs:
                points = spec.points()
                assert points, (e.id, spec.name)
                n += len(points)
                for key in spec.param_keys:
                    kinds = {type(p[key]) for p in points} - {str, bool}
                    assert len(kinds) <= 1, (e.id, spec.name, key, kinds)
    assert n > 1000
