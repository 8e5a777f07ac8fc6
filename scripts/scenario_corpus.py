"""The canonical-JSON corpus: what the core makes of every scenario hoptcp ships, and of a few
thousand generated ones, as sha256 digests (tests/data/scenario_corpus.sha256).

Issue #40 moved every scenario key's declaration; this corpus is its proof that nothing observable
changed. Each group below is a list of items; an item is the core's canonical JSON of a resolved
scenario (`hoptcp scenario show --json`), the resolved TOML (`hoptcp scenario show`) for the
examples, or the error text of a scenario the core refuses. A group's digest is the sha256 of its
items joined by newlines, so one changed byte anywhere changes it.

- ``example/<file>``: every file of examples/ (JSON and TOML);
- ``entry/<id>[/side/<name>][/quick]``: every point of every reproduction entry and side sweep,
  full and quick, with the entry's derive function applied as a run applies it;
- ``ns2/<suite>``: every case of validation/ns2's suites;
- ``keys/<base>``: every key of ``KEYS`` set to each of ``VALUES`` over each base scenario (most
  are refused: the error texts of every range check and cross-key rule);
- ``property/<n>``: seeded random scenarios: several keys at once, drawn from the same lists.

    python scripts/scenario_corpus.py            # compare with the stored digests (exit 1 if any differs)
    python scripts/scenario_corpus.py --write    # store them (only when a change is meant to alter the form)
    python scripts/scenario_corpus.py --dump DIR # every item as a file, to diff two versions

``KEYS`` and ``VALUES`` are written out here, not read from the core, so keys added later do not
change what is generated.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "tests" / "data" / "scenario_corpus.sha256"

#: the scenario keys at issue #40's starting commit (fadd4a8), list entries at index 0
KEYS = """
name description duration_s seed topology.kind topology.hops topology.spacing_m topology.rows topology.cols
topology.chains topology.chain_gap_m topology.gateway topology.leaves topology.radius_m topology.nodes
topology.width_m topology.height_m topology.topology_seed topology.require_connected topology.positions
radio.tx_range_m radio.cs_range_m radio.capture_db radio.standard radio.data_rate_mbps radio.basic_rate_mbps
radio.tx_power_w radio.frequency_hz radio.antenna_height_m radio.system_loss mac.rts_threshold_bytes
mac.short_retry_limit mac.long_retry_limit mac.queue_limit mac.cw_min mac.cw_max mac.frame_format
mac.backoff_slots mac.link_red.enabled mac.link_red.min_th mac.link_red.max_th mac.link_red.max_p
mac.link_red.weight mac.link_red.action mac.adaptive_pacing.enabled mac.adaptive_pacing.trigger
mac.adaptive_pacing.wait mac.adaptive_pacing.extra ip.ttl ip.ll_delay_us ip.ldm.enabled ip.ldm.estimate ip.ldm.k
ip.ldm.hops_per_window ip.ldm.min_window ip.ldm.floor_window ip.ldm.target_window ip.ldm.flow_bits
ip.ldm.clear_period_s ip.ldm.initial_ttls ip.ldm.action routing.protocol routing.aodv.ttl_start
routing.aodv.ttl_increment routing.aodv.ttl_threshold routing.aodv.network_diameter routing.aodv.rreq_retries
routing.aodv.max_rreq_timeout_s routing.aodv.node_traversal_time_s routing.aodv.active_route_timeout_s
routing.aodv.my_route_timeout_s routing.aodv.reverse_route_life_s routing.aodv.bcast_id_save_s
routing.aodv.buffer_packets routing.aodv.buffer_timeout_s routing.aodv.broadcast_jitter_s routing.aodv.arp_delay_s
routing.aodv.purge_interval_s routing.aodv.local_repair routing.aodv.first_rreq_network_wide
routing.aodv.link_detection routing.aodv.hello_interval_s routing.aodv.allowed_hello_loss tcp.variant
tcp.payload_bytes tcp.max_window tcp.ecn tcp.delayed_ack tcp.min_rto_s tcp.initial_window tcp.initial_ssthresh
tcp.vegas_alpha tcp.vegas_beta tcp.vegas_gamma tcp.ap.profile tcp.ap.variation tcp.ap.alpha tcp.ap.hop_factor
tcp.ap.short_path tcp.ap.history tcp.ap.overhead_bytes tcp.ap.delay_bound_s tcp.ap.initial_interval_s
tcp.ap.timer tcp.ap.timeout_backoff tcp.ap.dupack_flush flows.0.src flows.0.dst flows.0.transport flows.0.app
flows.0.rate_bps flows.0.packet_bytes flows.0.jitter flows.0.start_s flows.0.stop_s flows.0.pauses
flows.0.mean_page_bytes flows.0.page_shape flows.0.mean_think_s flows.0.route flows.0.count flows.0.variant
flows.0.payload_bytes flows.0.max_window flows.0.ecn flows.0.delayed_ack flows.0.min_rto_s random_flows.count
random_flows.transport random_flows.app random_flows.rate_bps random_flows.packet_bytes random_flows.jitter
random_flows.mean_page_bytes random_flows.page_shape random_flows.mean_think_s random_flows.start_s
random_flows.stop_s random_flows.min_hops random_flows.max_hops random_flows.flow_seed stats.throughput_interval_s
stats.warmup_s stats.batch_packets stats.batches stats.batch_discard stats.batch_confidence stats.series
stats.air_window_s wired.gateway wired.nodes wired.bandwidth_mbps wired.delay_ms wired.queue_limit
wired.links.0.a wired.links.0.b wired.links.0.bandwidth_mbps wired.links.0.delay_ms wired.links.0.queue_limit
wired.tcp_gap.enabled wired.tcp_gap.goodput_control wired.tcp_gap.threshold wired.tcp_gap.period_s
wired.tcp_gap.aging wired.tcp_gap.buffer_packets wired.tcp_gap.flow_timeout_s
mac.nosuch tcp.max_windw flows.0.nosuch nosuch topology.nosuch radio.nosuch wired.nosuch routing.aodv.nosuch tcp.ap.nosuch
stats.nosuch ip.ldm.nosuch random_flows.nosuch mac.link_red.nosuch wired.tcp_gap.nosuch wired.links.0.nosuch
""".split()

#: values (TOML literals) every key is set to: edges of every range, wrong types, words of the enums
VALUES = [
    "-1", "0", "1", "2", "3", "7", "64", "255", "256", "1000", "1000001", "4294967296", "9223372036854775807",
    "-0.5", "0.0", "0.001", "0.5", "0.999", "1.0", "1.5", "2.0", "5.5", "250.0", "600.0", "1e9", "nan", "inf",
    "true", "false", '"x"', '"wstar"', '"tcp"', '"udp"', '"cbr"', '"http"', '"ftp"', '"aodv"', '"ns2"', '"vegas"',
    '"tcp_ap"', '"hello"', '"mark"', '"drop"', '"ofdm"', '"grid"', '"random"', '"timer"', '"mad"', '"standard"',
    "[]", "[1, 2]", "[[0, 0], [100, 0]]", "[[1.0, 2.0]]", '["cwnd", "air"]', "[30, 64, 128, 255]", "{}",
]

#: scenarios each key is tried over (each turns on one part: AODV, a wired domain, random flows, ...)
BASES = {
    "chain": "examples/chain7.toml",
    "aodv": "examples/chain7-aodv.toml",
    "tcp-ap": "examples/chain7-tcp-ap.toml",
    "gap-chain": "examples/gap-chain.toml",
    "gap-parallel": "examples/gap-parallel.toml",
    "grid-udp": "examples/grid13-udp.toml",
    "http": "examples/http-chain.toml",
    "random": None,  # RANDOM_BASE below
}

RANDOM_BASE = """duration_s = 20.0
[topology]
kind = "random"
nodes = 12
width_m = 500.0
height_m = 500.0
[random_flows]
count = 3
transport = "tcp"
[stats]
batch_packets = 50
batches = 4
"""

PROPERTY_CASES = 400


def _core() -> Any:
    import hoptcp._core as core

    return core


def _resolve(toml: str, pairs: tuple[tuple[str, str], ...], as_toml: bool = False) -> str:
    core = _core()
    try:
        return core.resolve_toml(toml, list(pairs)) if as_toml else core.resolve(toml, list(pairs))
    except core.ScenarioError as exc:
        return f"error: {exc}"


def _base_text(name: str) -> str:
    path = BASES[name]
    return RANDOM_BASE if path is None else (ROOT / path).read_text()


def groups() -> Iterator[tuple[str, Callable[[], list[str]]]]:
    """Every group's name and a function that computes its items."""
    for path in sorted((ROOT / "examples").glob("*.toml")):
        text = path.read_text()
        yield f"example/{path.name}", lambda text=text: [_resolve(text, ()), _resolve(text, (), as_toml=True)]
    yield from _entry_groups()
    yield from _ns2_groups()
    for base in BASES:
        yield f"keys/{base}", lambda base=base: _key_items(base)
    yield "property", _property_items


def _entry_groups() -> Iterator[tuple[str, Callable[[], list[str]]]]:
    from hoptcp.reproduce.catalogue import catalogue

    for entry in catalogue():
        for quick in (False, True):
            q = "/quick" if quick else ""
            yield f"entry/{entry.id}{q}", lambda e=entry, q=quick: _points(e.sweep_spec(q), e.derive_fn())
            for side in entry.sides:
                yield (f"entry/{entry.id}/side/{side.name}{q}",
                       lambda e=entry, s=side, q=quick: _points(s.sweep_spec(e.id, q), s.derive_fn()))


def _points(spec: Any, derive: Any) -> list[str]:
    """Each point's scenario as `hoptcp.sweep.plan` builds it."""
    base = spec.scenario.with_overrides(spec.set)
    out = [_resolve(base.toml, base.overrides)]
    for params in spec.points():
        sc = base.with_overrides(params)
        if derive is not None:
            sc = sc.with_overrides(derive(params))
        out.append(_resolve(sc.toml, sc.overrides))
    return out


def _ns2_groups() -> Iterator[tuple[str, Callable[[], list[str]]]]:
    from hoptcp.ns2.validation import load_suite

    suites = [ROOT / "validation/ns2/suite.toml", *sorted((ROOT / "validation/ns2/ports").glob("*.toml"))]
    for path in suites:
        def items(path: Path = path) -> list[str]:
            return [_resolve(c.scenario.toml, c.scenario.overrides) for c in load_suite(path).cases]

        yield f"ns2/{path.relative_to(ROOT / 'validation/ns2')}", items


def _key_items(base: str) -> list[str]:
    text = _base_text(base)
    return [f"{k}={v}: {_resolve(text, ((k, v),))}" for k in KEYS for v in VALUES]


def _property_items() -> list[str]:
    rng = random.Random(40)
    out = []
    for _ in range(PROPERTY_CASES):
        base = rng.choice(sorted(BASES))
        pairs = tuple((rng.choice(KEYS), rng.choice(VALUES)) for _ in range(rng.randint(1, 5)))
        out.append(f"{base} {pairs}: {_resolve(_base_text(base), pairs)}")
    return out


def digests(names: set[str] | None = None) -> dict[str, tuple[int, str]]:
    """Group name -> (item count, sha256 of its items)."""
    out = {}
    for name, items in groups():
        if names is not None and name not in names:
            continue
        got = items()
        out[name] = (len(got), hashlib.sha256("\n".join(got).encode()).hexdigest())
    return out


def read_manifest(path: Path = MANIFEST) -> dict[str, tuple[int, str]]:
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            digest, count, name = line.split(maxsplit=2)
            out[name] = (int(count), digest)
    return out


def write_manifest(d: dict[str, tuple[int, str]], path: Path = MANIFEST) -> None:
    lines = ["# sha256 items group: written by scripts/scenario_corpus.py --write (issue #40)"]
    lines += [f"{sha} {count} {name}" for name, (count, sha) in d.items()]
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="store the digests in " + str(MANIFEST.relative_to(ROOT)))
    ap.add_argument("--dump", metavar="DIR", help="write every item of every group under DIR")
    args = ap.parse_args(argv)
    if args.dump:
        for name, items in groups():
            p = Path(args.dump) / (name.replace("/", "__") + ".txt")
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("\n".join(items()) + "\n")
        return 0
    now = digests()
    if args.write:
        write_manifest(now)
        print(f"{len(now)} groups, {sum(c for c, _ in now.values())} items written to {MANIFEST}")
        return 0
    stored = read_manifest()
    bad = [n for n in stored if now.get(n) != stored[n]]
    for n in bad:
        print(f"differs: {n} (stored {stored[n]}, now {now.get(n)})")
    print(f"{len(stored)} groups, {sum(c for c, _ in stored.values())} items: "
          f"{'byte-identical' if not bad else f'{len(bad)} groups differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
