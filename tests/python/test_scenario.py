import json

import pytest

import hoptcp
from hoptcp import Scenario, ScenarioError
from hoptcp._toml import literal


def test_load_and_resolve(fake_core, scenario_file):
    sc = Scenario.load(scenario_file)
    assert sc.name == "chain" and sc.base_dir == scenario_file.parent
    r = sc.resolved()
    assert r["tcp"]["max_window"] == 8 and r["mac"]["queue_limit"] == 50  # default filled


def test_with_maps_double_underscore_and_converts_values(fake_core, scenario_file):
    sc = Scenario.load(scenario_file).with_(tcp__max_window=3, flows__0__stop_s=2.5, topology__kind="chain",
                                            tcp__ecn=True)
    assert sc.overrides == (("tcp.max_window", "3"), ("flows.0.stop_s", "2.5"), ("topology.kind", '"chain"'),
                            ("tcp.ecn", "true"))
    r = sc.resolved()
    assert r["tcp"]["max_window"] == 3 and r["flows"][0]["stop_s"] == 2.5 and r["tcp"]["ecn"] is True


def test_value_semantics(fake_core, scenario_file):
    a = Scenario.load(scenario_file)
    b = a.with_(tcp__max_window=3)
    assert a.overrides == () and b != a
    assert b == Scenario.load(scenario_file).with_overrides({"tcp.max_window": 3})
    assert b.with_(tcp__max_window=4).overrides == (("tcp.max_window", "4"),)  # last value wins
    assert hash(b) == hash(a.with_(tcp__max_window=3))
    with pytest.raises(AttributeError):  # frozen dataclass
        b.toml = "x"


def test_hash_ignores_seed_but_not_other_keys(fake_core, scenario_file):
    sc = Scenario.load(scenario_file)
    assert sc.hash() == sc.with_(seed=99).hash()
    assert sc.hash() != sc.with_(tcp__max_window=9).hash()
    # the same resolved scenario written differently has the same hash
    assert sc.hash() == sc.with_(mac__queue_limit=50).hash()
    assert len(sc.hash()) == 64


def test_errors_are_scenario_errors(fake_core, tmp_path, scenario_file):
    with pytest.raises(ScenarioError, match="not found"):
        Scenario.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("duration_s = = 3")
    with pytest.raises(ScenarioError, match="invalid TOML"):
        Scenario.load(bad)
    with pytest.raises(ScenarioError, match="tcp.max_windw"):
        Scenario.load(scenario_file).with_(tcp__max_windw=3).resolved()
    with pytest.raises(ValueError):  # ScenarioError is a ValueError
        Scenario.load(scenario_file).with_(topology__kind="ring").resolved()


def test_toml_literals():
    assert literal(3) == "3" and literal(1e5) == "100000.0" and literal(False) == "false"
    assert literal('a"b\\') == '"a\\"b\\\\"'
    assert literal([1, 2.5, "x"]) == '[1, 2.5, "x"]'
    assert literal({"src": 1, "app": "cbr"}) == '{src = 1, app = "cbr"}'
    assert literal(range(3)) == "[0, 1, 2]"
    np = pytest.importorskip("numpy")
    assert literal(np.int64(4)) == "4" and literal(np.array([1, 2])) == "[1, 2]"
    with pytest.raises(TypeError):
        literal(object())


def test_run_api(fake_core, scenario_file, tmp_path):
    r = hoptcp.run(scenario_file, seed=2, tcp__max_window=4)
    assert isinstance(r, hoptcp.RunResult) and r.seed == 2
    assert r.scenario.overrides == (("tcp.max_window", "4"),)
    pcap = tmp_path / "t.pcap"
    hoptcp.run(Scenario.load(scenario_file), pcap=pcap, pcap_view="network")  # written by the (fake) core
    assert pcap.read_bytes()[:4] == b"\xd4\xc3\xb2\xa1"
    # same scenario and seed: identical result apart from the wall clock
    a, b = (json.loads(hoptcp.run(scenario_file, seed=5).to_json()) for _ in range(2))
    a.pop("wall_time_s"), b.pop("wall_time_s")
    assert a == b


def test_core_unavailable_message(monkeypatch):
    from hoptcp import _bridge
    from hoptcp.errors import CoreUnavailableError

    monkeypatch.setattr(_bridge, "_core", None)
    monkeypatch.setitem(__import__("sys").modules, "hoptcp._core", None)  # make the import fail
    with pytest.raises(CoreUnavailableError, match="maturin develop"):
        _bridge.core()
