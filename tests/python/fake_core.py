"""FakeCore: a test double of ``hoptcp._core`` for unit tests.

It honours the contract of the real extension (function names and signatures,
canonical JSON, ScenarioError as a ValueError subclass with one message naming
key, value and what is allowed, deterministic results from (scenario, seed)) but
simulates nothing: numbers are pseudo-random draws seeded by the scenario hash.
Never used outside tests.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import threading
import time
from typing import Any

from hoptcp._toml import TOMLDecodeError
from hoptcp._toml import loads as toml_loads

VERSION = "0.0.0-fake"


class ScenarioError(ValueError):
    pass


def _int(lo=None):
    def check(v):
        return isinstance(v, int) and not isinstance(v, bool) and (lo is None or v >= lo)
    return check, f"an integer{'' if lo is None else f' >= {lo}'}"


def _num(lo=0.0):
    def check(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= lo
    return check, f"a number >= {lo}"


def _one_of(*choices):
    return (lambda v: v in choices), "one of " + ", ".join(f'"{c}"' for c in choices)


_BOOL = ((lambda v: isinstance(v, bool)), "true or false")
_POSITIONS = ((lambda v: isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 for p in v)),
              "a list of [x, y] pairs")

SCHEMA: dict[str, Any] = {
    "duration_s": (10.0, _num(0.001)),
    "seed": (1, _int(0)),
    "topology": {
        "kind": ("chain", _one_of("chain", "grid", "cross", "parallel_chains", "star", "random", "explicit")),
        "hops": (4, _int(1)), "spacing_m": (200.0, _num()), "rows": (3, _int(1)), "cols": (3, _int(1)),
        "leaves": (4, _int(1)), "radius_m": (100.0, _num()), "nodes": (10, _int(1)),
        "width_m": (1000.0, _num()), "height_m": (1000.0, _num()), "positions": ([], _POSITIONS),
    },
    "radio": {
        "tx_range_m": (250.0, _num()), "cs_range_m": (550.0, _num()), "capture_db": (10.0, _num()),
        "standard": ("dsss", _one_of("dsss", "ofdm")), "data_rate_mbps": (2.0, _num(0.1)),
        "basic_rate_mbps": (1.0, _num(0.1)),
    },
    "mac": {
        "rts_threshold_bytes": (0, _int(0)), "short_retry_limit": (7, _int(1)),
        "long_retry_limit": (4, _int(1)), "queue_limit": (50, _int(1)),
    },
    "routing": {"protocol": ("static", _one_of("static", "aodv"))},
    "tcp": {
        "variant": ("newreno", _one_of("newreno", "reno", "vegas")), "payload_bytes": (1460, _int(1)),
        "max_window": (20, _int(1)), "ecn": (False, _BOOL), "delayed_ack": (False, _BOOL),
        "min_rto_s": (0.2, _num()),
    },
}
FLOW_SCHEMA = {
    "src": (0, _int(0)), "dst": (1, _int(0)), "transport": ("tcp", _one_of("udp", "tcp")),
    "app": ("ftp", _one_of("cbr", "ftp")), "rate_bps": (1e5, _num(1.0)), "packet_bytes": (1000, _int(1)),
    "start_s": (0.0, _num()), "stop_s": (None, ((lambda v: v is None or (isinstance(v, (int, float)) and v >= 0)), "a number >= 0")),
}


def _err(key, value, allowed):
    raise ScenarioError(f"{key}: invalid value {json.dumps(value)}; expected {allowed}")


def _unknown(key, allowed):
    raise ScenarioError(f"unknown key '{key}'; allowed here: {', '.join(sorted(allowed))}")


def _parse_value(text: str) -> Any:
    try:
        return toml_loads(f"v = {text}")["v"]
    except TOMLDecodeError:
        return text  # bare word -> string


def _set(doc: dict, key: str, value: Any) -> None:
    parts = key.split(".")
    node: Any = doc
    path = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        path.append(part)
        where = ".".join(path)
        if isinstance(node, list):
            if not part.isdigit():
                raise ScenarioError(f"{where}: '{part}' is not an index into a list of {len(node)} entries")
            idx = int(part)
            if idx >= len(node):
                raise ScenarioError(f"{where}: index {idx} out of range; the scenario has {len(node)} entries")
            if last:
                node[idx] = value
            else:
                node = node[idx]
            continue
        if not isinstance(node, dict):
            raise ScenarioError(f"{where}: cannot set a key inside a {type(node).__name__} value")
        if last:
            node[part] = value
        else:
            if part not in node:
                node[part] = [] if part == "flows" else {}
            node = node[part]


def _resolve_doc(toml_text: str, overrides) -> dict:
    try:
        doc = toml_loads(toml_text)
    except TOMLDecodeError as exc:
        raise ScenarioError(f"invalid TOML: {exc}") from None
    for k, v in overrides:
        _set(doc, k, _parse_value(v))
    out: dict[str, Any] = {}
    for key in doc:
        if key not in SCHEMA and key != "flows":
            _unknown(key, list(SCHEMA) + ["flows"])
    for key, spec in SCHEMA.items():
        if isinstance(spec, dict):
            given = doc.get(key, {})
            if not isinstance(given, dict):
                _err(key, given, "a table")
            out[key] = _resolve_table(key, given, spec)
        else:
            default, (check, allowed) = spec
            v = doc.get(key, default)
            if not check(v):
                _err(key, v, allowed)
            out[key] = float(v) if isinstance(default, float) else v
    flows = doc.get("flows", [])
    if not isinstance(flows, list):
        _err("flows", flows, "an array of tables [[flows]]")
    out["flows"] = [_resolve_table(f"flows.{i}", f, FLOW_SCHEMA) for i, f in enumerate(flows)]
    return out


def _resolve_table(prefix, given, spec):
    if not isinstance(given, dict):
        _err(prefix, given, "a table")
    for k in given:
        if k not in spec:
            _unknown(f"{prefix}.{k}", spec)
    out = {}
    for k, (default, (check, allowed)) in spec.items():
        v = given.get(k, default)
        if not check(v):
            _err(f"{prefix}.{k}", v, allowed)
        out[k] = float(v) if isinstance(default, float) and v is not None else v
    return out


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _node_count(topo: dict) -> int:
    kind = topo["kind"]
    return {
        "chain": topo["hops"] + 1, "grid": topo["rows"] * topo["cols"], "cross": 2 * topo["hops"] + 1,
        "parallel_chains": 2 * (topo["hops"] + 1), "star": topo["leaves"] + 1, "random": topo["nodes"],
        "explicit": max(1, len(topo["positions"])),
    }[kind]


def _saturation_bps(payload: int, rate_mbps: float) -> float:
    """A made-up smooth capacity curve standing in for the analytic model."""
    return rate_mbps * 1e6 * payload / (payload + 700.0)


class FakeCore:
    """Instances are drop-in replacements for the ``hoptcp._core`` module."""

    ScenarioError = ScenarioError

    def __init__(self, delay_s: float = 0.0, fail_seed: int | None = None, block_from: int | None = None):
        self.delay_s = delay_s
        self.fail_seed = fail_seed
        self.runs = 0
        #: runs started from this index on (0-based) wait until `release` is set,
        #: reporting progress meanwhile (so they stop when the caller cancels)
        self.block_from = block_from
        self.release = threading.Event()
        self.started = 0
        self._lock = threading.Lock()

    def version(self) -> str:
        return VERSION

    def resolve(self, scenario_toml: str, overrides) -> str:
        return _canonical(_resolve_doc(scenario_toml, list(overrides)))

    def run(self, scenario_toml: str, overrides, seed, pcap, progress=None, progress_every_s=None) -> str:
        t0 = time.perf_counter()
        sc = _resolve_doc(scenario_toml, list(overrides))
        if seed is not None:
            sc["seed"] = seed
        n_nodes = _node_count(sc["topology"])
        for i, f in enumerate(sc["flows"]):
            for end in ("src", "dst"):
                if f[end] >= n_nodes:
                    raise ScenarioError(
                        f"flows.{i}.{end}: invalid value {f[end]}; expected a node id below {n_nodes}")
        if self.fail_seed is not None and sc["seed"] == self.fail_seed:
            raise RuntimeError(f"simulated core failure for seed {sc['seed']}")
        with self._lock:
            index = self.started
            self.started += 1
        if self.block_from is not None and index >= self.block_from:
            while not self.release.wait(0.01):
                if progress is not None:
                    progress(0.5)  # like the real core: an exception here stops the run
        with self._lock:
            self.runs += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        digest = hashlib.sha256((_canonical({k: v for k, v in sc.items() if k != "seed"}) + f"#{sc['seed']}").encode()).digest()
        rng = random.Random(digest)
        radio, mac = sc["radio"], sc["mac"]
        flows = []
        for i, f in enumerate(sc["flows"]):
            hops = max(1, abs(f["dst"] - f["src"])) if sc["topology"]["kind"] == "chain" else 1
            payload = f["packet_bytes"] if f["transport"] == "udp" else sc["tcp"]["payload_bytes"]
            cap = _saturation_bps(payload, radio["data_rate_mbps"]) / hops / len(sc["flows"])
            if f["transport"] == "udp":
                cap = min(cap, f["rate_bps"])
            goodput = cap * (1.0 + rng.uniform(-0.01, 0.01))
            sent = int(goodput * sc["duration_s"] / (8 * payload)) + rng.randint(0, 5)
            delivered = int(goodput * sc["duration_s"] / (8 * payload))
            flow = {
                "id": i, "src": f["src"], "dst": f["dst"], "transport": f["transport"], "app": f["app"],
                "hops": hops, "packets_sent": sent, "packets_delivered": delivered,
                "bytes_delivered": delivered * payload, "goodput_bps": goodput,
            }
            if f["transport"] == "tcp":
                w = min(sc["tcp"]["max_window"], 3 + rng.randint(0, 2))
                hist = [0.0] * (sc["tcp"]["max_window"] + 1)
                hist[w] = sc["duration_s"]
                flow.update(avg_cwnd=w + rng.random(), cwnd_hist=hist, avg_rtt_s=0.01 * hops * (1 + rng.random()),
                            retransmissions=rng.randint(0, 20), timeouts=rng.randint(0, 3),
                            fast_retransmits=rng.randint(0, 5))
            flows.append(flow)
        nodes = [
            {"id": n, "x": float(n * sc["topology"]["spacing_m"]), "y": 0.0, "rts_sent": rng.randint(0, 1000), "mac_packets": rng.randint(1, 1000), "cts_sent": rng.randint(0, 1000),
             "cts_timeouts": rng.randint(0, 50), "ack_timeouts": rng.randint(0, 10), "retries": rng.randint(0, 60),
             "rx_collisions": rng.randint(0, 40), "cts_withheld": rng.randint(0, 5),
             "queue_max": min(mac["queue_limit"], rng.randint(0, 60)), "queue_avg": rng.random() * 5,
             "mac_drops": rng.randint(0, 4)}
            for n in range(n_nodes)
        ]
        by_kind = {k: {"queue_overflow": rng.randint(0, 9), "mac_rts_retry": rng.randint(0, 3),
                       "mac_data_retry": rng.randint(0, 2)} for k in ("tcp_data", "tcp_ack", "udp")}
        drops = {c: sum(v[c] for v in by_kind.values()) for c in ("queue_overflow", "mac_rts_retry", "mac_data_retry")}
        drops.update(no_route=0, ttl=0, by_kind=by_kind)
        goodputs = [f["goodput_bps"] for f in flows]
        jain = (sum(goodputs) ** 2 / (len(goodputs) * sum(g * g for g in goodputs))) if goodputs and any(goodputs) else None
        result = {
            "seed": sc["seed"], "duration_s": sc["duration_s"], "events": rng.randint(10_000, 20_000),
            "wall_time_s": time.perf_counter() - t0, "hoptcp_version": VERSION,
            "flows": flows, "nodes": nodes, "drops": drops, "fairness_jain": jain,
            "aggregate_goodput_bps": sum(goodputs),
            "phy": {"frames_captured": rng.randint(0, 9)},  # an "unknown" key: must flow through
            "series": {"interval_s": 1.0, "flows": {str(f["id"]): [f["goodput_bps"]] * 3 for f in flows}},
        }
        if pcap:
            with open(pcap, "wb") as fh:
                fh.write(b"\xd4\xc3\xb2\xa1" + bytes(20))
        return json.dumps(result, sort_keys=True, separators=(",", ":"))

    def model(self, name: str, params_json: str) -> str:
        try:
            p = json.loads(params_json)
        except json.JSONDecodeError as exc:
            raise ValueError(f"params: not JSON ({exc})") from None
        if not isinstance(p, dict):
            raise ValueError("params: expected a JSON object")
        if name == "wstar":
            topo, h = p.get("topology", "chain"), p.get("hops")
            if not isinstance(h, int) or h < 1:
                raise ValueError(f"hops: invalid value {json.dumps(h)}; expected an integer >= 1")
            w = {"chain": max(1, round(h / 4)), "cross": math.ceil((h + 4) / 8), "grid": math.ceil((h + 9) / 14)}.get(topo)
            if w is None:
                raise ValueError(f'topology: invalid value "{topo}"; expected one of "chain", "cross", "grid"')
            return json.dumps({"topology": topo, "hops": h, "wstar": w})
        if name in ("single_hop", "bianchi"):
            payload = p.get("payload_bytes", 1460 if name == "single_hop" else 1000)
            rate = p.get("data_rate_mbps", 2.0)
            if not isinstance(payload, int) or payload < 1:
                raise ValueError(f"payload_bytes: invalid value {json.dumps(payload)}; expected an integer >= 1")
            g = _saturation_bps(payload, rate)
            if name == "bianchi":
                n = p.get("stations")
                if not isinstance(n, int) or n < 1:
                    raise ValueError(f"stations: invalid value {json.dumps(n)}; expected an integer >= 1")
                g *= 1 - 0.002 * n
                return json.dumps({"stations": n, "goodput_bps": g, "tau": 2 / (33 * n), "p_collision": 1 - (1 - 2 / 33) ** (n - 1)})
            return json.dumps({"goodput_bps": g})
        if name == "linkdrop":
            return json.dumps({"p_drop": 0.01})
        raise ValueError(f'model: unknown model "{name}"; expected one of "wstar", "bianchi", "single_hop", "linkdrop"')


def install(delay_s: float = 0.0, block_from: int | None = None) -> FakeCore:
    """Install a FakeCore into hoptcp's bridge (for subprocess helper scripts)."""
    from hoptcp import _bridge

    fake = FakeCore(delay_s=delay_s, block_from=block_from)
    _bridge.set_core(fake)
    return fake


class GatedCore:
    """The compiled core, except that runs from index ``block_from`` on (0-based,
    in the order they start) wait forever, reporting progress meanwhile: a
    sweep then stops at a known point, whatever the machine's speed."""

    def __init__(self, real: Any, block_from: int):
        self._real, self.block_from = real, block_from
        self.ScenarioError = real.ScenarioError
        self._started = 0
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def run(self, scenario_toml, overrides, seed=None, pcap=None, progress=None, progress_every_s=0.25):
        with self._lock:
            index, self._started = self._started, self._started + 1
        if index >= self.block_from:
            while True:
                time.sleep(0.01)
                if progress is not None:
                    progress(0.0)
        return self._real.run(scenario_toml, overrides, seed, pcap, progress, progress_every_s=progress_every_s)


def install_gated(block_from: int) -> GatedCore:
    """Install the compiled core behind a gate (for subprocess helper scripts)."""
    import hoptcp._core as compiled
    from hoptcp import _bridge

    gated = GatedCore(compiled, block_from)
    _bridge.set_core(gated)
    return gated
