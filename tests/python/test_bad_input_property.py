"""Property-based bad input: thousands of random and mutated scenario files and
``--set`` values through the CLI entry point (in process, real core). Whatever
the input, hoptcp either runs it (exit 0, one JSON document) or rejects it with
exit status 2 and exactly one line on stderr: never a traceback, never a panic.

The example counts are fixed and the generation derandomized (the same inputs
on every run), so CI cost stays a few seconds; docs/testing.md records them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hoptcp.entry import main  # noqa: E402  (the console entry: `run --json` takes its fast lane)

pytestmark = pytest.mark.core

#: examples per property (keep in step with docs/testing.md)
FILE_EXAMPLES = 400
SET_EXAMPLES = 400
FUZZ_EXAMPLES = 1200
PATH_EXAMPLES = 300

BASES = [
    'duration_s = 0.05\nseed = 1\n[topology]\nkind = "chain"\nhops = 2\nspacing_m = 200\n'
    '[tcp]\nmax_window = 4\n[[flows]]\nsrc = 0\ndst = 2\ntransport = "tcp"\n',
    'duration_s = 0.05\n[topology]\nkind = "grid"\nrows = 2\ncols = 2\n[radio]\nstandard = "ofdm"\n'
    '[mac]\nqueue_limit = 5\nrts_threshold_bytes = 0\n[[flows]]\nsrc = 0\ndst = 3\ntransport = "udp"\n'
    'app = "cbr"\nrate_bps = 1e5\npacket_bytes = 512\n',
    'duration_s = 0.05\n[topology]\nkind = "explicit"\npositions = [[0, 0], [150, 0], [300, 10]]\n'
    '[[flows]]\nsrc = 0\ndst = 2\ntransport = "tcp"\nstart_s = 0.01\n',
]

KEYS = ["duration_s", "seed", "topology.kind", "topology.hops", "topology.spacing_m", "topology.rows",
        "topology.nodes", "radio.tx_range_m", "radio.cs_range_m", "radio.standard", "radio.data_rate_mbps",
        "mac.queue_limit", "mac.rts_threshold_bytes", "mac.cw_min", "tcp.max_window", "tcp.variant",
        "tcp.payload_bytes", "tcp.min_rto_s", "flows.0.src", "flows.0.dst", "flows.0.rate_bps", "flows.1.src",
        "flows", "stats.warmup_s", "ip.ttl", "nosuch.key", "tcp", "flows.0", "flows.x.src", ".", "a..b"]

TOKENS = ["=", "[", "]", "[[", "]]", "{", "}", ",", '"', "'", "\n", " ", "#", ".", "-", "+", "e", "0", "1", "9",
          "1e308", "-1", "nan", "inf", "true", "false", "18446744073709551616", "9223372036854775808", "0.0",
          "[topology]", "[[flows]]", "kind", "hops", "src", "dst", '"chain"', '"ring"', "\x00", "\xe9", "\u2028"]

values = st.one_of(
    st.sampled_from(TOKENS),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=12),
    st.lists(st.sampled_from(["1", "2.5", '"x"', "[0, 0]", "{}"]), max_size=4).map(lambda v: "[" + ", ".join(v) + "]"),
)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    text = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace_value", "duplicate_line", "truncate"]))
        pos = draw(st.integers(0, len(text)))
        if op == "insert":
            text = text[:pos] + draw(values) + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 20)):]
        elif op == "replace_value":
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            if "=" in lines[i]:
                lines[i] = lines[i].split("=")[0] + "= " + draw(values)
            text = "\n".join(lines)
        elif op == "duplicate_line":
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        else:
            text = text[:pos]
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()) and draw(st.integers(0, 9)) == 0:  # now and then: raw bytes
        data = draw(st.binary(min_size=1, max_size=200))
    return data


def _check(capsys: pytest.CaptureFixture[str], args: list[str], tally: dict[str, int]) -> None:
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "panicked" not in out + err, err
    if code == 0:
        tally["accepted"] += 1
        json.loads(out)  # the one JSON document
        return
    tally["rejected"] += 1
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoptcp: error: "), err
    assert out == ""


def common(examples: int) -> settings:
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None, print_blob=False,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def tally() -> dict[str, int]:
    counts = {"accepted": 0, "rejected": 0}
    yield counts
    print(f"\nbad-input property: {counts['accepted'] + counts['rejected']} inputs, "
          f"{counts['rejected']} rejected with one line, {counts['accepted']} valid and run")


@common(FILE_EXAMPLES)
@given(data=mutated())
def test_mutated_scenario_files(real_core, capsys, tmp_path_factory, tally, data):
    path = Path(tmp_path_factory.getbasetemp()) / "mutated.toml"
    path.write_bytes(data)
    # The last override keeps valid runs short; the file itself is whatever was drawn.
    _check(capsys, ["run", str(path), "--json", "--set", "duration_s=0.02"], tally)


@common(SET_EXAMPLES)
@given(base=st.sampled_from(BASES), sets=st.lists(st.tuples(st.sampled_from(KEYS), values), min_size=1, max_size=3),
       seed=st.one_of(st.none(), st.integers(min_value=-(2**65), max_value=2**65)))
def test_random_set_values(real_core, capsys, tmp_path_factory, tally, base, sets, seed):
    path = Path(tmp_path_factory.getbasetemp()) / "base.toml"
    path.write_text(base)
    args = ["run", str(path), "--json"]
    for key, value in sets:
        args += ["--set", f"{key}={value}"]
    args += ["--set", "duration_s=0.02"]
    if seed is not None:
        args += ["--seed", str(seed)]
    _check(capsys, args, tally)


def _fuzz(rng: random.Random) -> tuple[bytes, list[str]]:
    """A cheaper generator for many more inputs: hypothesis draws one seed and
    this mutates a base file and builds --set values from it."""
    text = rng.choice(BASES)
    for _ in range(rng.randint(1, 6)):
        pos = rng.randint(0, len(text))
        op = rng.randrange(4)
        if op == 0:
            text = text[:pos] + rng.choice(TOKENS) + text[pos:]
        elif op == 1:
            text = text[:pos] + text[pos + rng.randint(1, 30):]
        elif op == 2:
            text = text[:pos] + str(rng.choice([rng.randint(-(2**70), 2**70), rng.random() * 10 ** rng.randint(-9, 9)])) + text[pos:]
        else:
            text = text[:pos] + "".join(chr(rng.randint(0, 0x2FF)) for _ in range(rng.randint(1, 5))) + text[pos:]
    sets = [f"{rng.choice(KEYS)}={rng.choice(TOKENS)}" for _ in range(rng.randint(0, 2))]
    return text.encode("utf-8", "surrogatepass"), sets


@common(FUZZ_EXAMPLES)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_fuzzed_files_and_sets(real_core, capsys, tmp_path_factory, tally, seed):
    data, sets = _fuzz(random.Random(seed))
    path = Path(tmp_path_factory.getbasetemp()) / "fuzzed.toml"
    path.write_bytes(data)
    args = ["run", str(path), "--json"]
    for s in sets:
        args += ["--set", s]
    _check(capsys, [*args, "--set", "duration_s=0.02"], tally)


# --- paths, outputs and the daily-use options (issue 21) ------------------------------------

SPEC = ('scenario = "base.toml"\nname = "prop"\nseeds = [1]\n[grid]\n"tcp.max_window" = [1, 2]\n'
        '[set]\nduration_s = 0.02\n')


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """Inputs that are not regular files, and places to write to."""
    import os

    d = Path(tmp_path_factory.mktemp("places"))
    (d / "base.toml").write_text(BASES[0])
    (d / "spec.toml").write_text(SPEC)
    os.mkfifo(d / "fifo.toml")
    big = d / "big.toml"
    with open(big, "wb") as f:
        f.truncate(64 * 1024 * 1024 + 1)
    (d / "exists.csv").write_text("x")
    return d


INPUTS = ["/dev/zero", "/dev/null", "fifo.toml", "big.toml", ".", "missing.toml", "base.toml"]
OUTPUTS = ["out.pcapng", "/dev/full", "nodir/out.pcapng", ".", "exists.csv", "out.csv", "out.json", "out.xlsx",
           "out", "out.parquet", "nodir/out.csv"]
NODE_IDS = st.one_of(st.integers(min_value=-3, max_value=5), st.integers(min_value=-(2**40), max_value=2**40),
                     st.sampled_from(["x", "", "1.5", "3e2"]))


@common(PATH_EXAMPLES)
@given(kind=st.sampled_from(["run", "pcap", "sweep", "export"]), where=st.sampled_from(INPUTS),
       out=st.sampled_from(OUTPUTS), node=st.one_of(st.none(), NODE_IDS),
       sets=st.lists(st.tuples(st.sampled_from(KEYS), values), max_size=2),
       fmt=st.one_of(st.none(), st.sampled_from(["csv", "parquet", "json", "xlsx"])), force=st.booleans())
def test_paths_outputs_and_options(real_core, capsys, places, tally, kind, where, out, node, sets, fmt, force):
    """Whatever the path, output file, --pcap-node, sweep --set or export format: exit 0,
    or one line: status 2 for bad input, 1 when writing failed (e.g. /dev/full)."""
    def at(name: str) -> str:
        return name if name.startswith("/") else str(places / name)

    store = at("prop.db")
    if kind == "run":
        args = ["run", at(where), "--json", "--set", "duration_s=0.02"]
    elif kind == "pcap":
        args = ["run", at("base.toml"), "--json", "--set", "duration_s=0.02", "--pcap", at(out)]
        if node is not None:
            args += ["--pcap-node", str(node)]
    elif kind == "sweep":
        args = ["sweep", at("spec.toml" if where == "base.toml" else where), "--store", store, "-q", "-j", "1"]
        for key, value in sets:
            args += ["--set", f"{key}={value}"]
    else:
        if not Path(store).exists():
            assert main(["sweep", at("spec.toml"), "--store", store, "-q", "-j", "1"]) == 0
        args = ["results", "export", "--store", store, "-o", at(out)]
        args += [*(["--format", fmt] if fmt else []), *(["--force"] if force else [])]
    code = main(args)
    stdout, err = capsys.readouterr()
    assert "Traceback" not in stdout + err and "panicked" not in stdout + err, err
    for name in ("out.csv", "out.json", "out.parquet"):  # keep "the file exists" reachable, not permanent
        (places / name).unlink(missing_ok=True)
    if code == 0:
        tally["accepted"] += 1
        if "--json" in args:
            json.loads(stdout)
        return
    tally["rejected"] += 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoptcp: error: "), (args, err)
    assert code == 2 or (code == 1 and "failed" in lines[0]), (args, code, err)
