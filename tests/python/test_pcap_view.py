"""The trace ``hoptcp run --pcap FILE`` writes by default, the sources' view
(hoptcp.pcap_view): Wireshark's TCP analysis counts exactly the flows' retransmissions."""

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from hoptcp.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def read_pcapng(path):
    """(interfaces: [(link type, name)], packets: [(interface, t_ns, bytes, orig_len)]) of a
    little-endian pcapng file."""
    data = Path(path).read_bytes()
    ifaces, packets, at = [], [], 0
    while at < len(data):
        btype, n = struct.unpack_from("<II", data, at)
        assert n % 4 == 0 and struct.unpack_from("<I", data, at + n - 4)[0] == n
        if btype == 1:
            link = struct.unpack_from("<H", data, at + 8)[0]
            code, length = struct.unpack_from("<HH", data, at + 16)
            assert code == 2  # if_name first
            ifaces.append((link, data[at + 20:at + 20 + length].decode()))
        elif btype == 6:
            iface, hi, lo, cap, orig = struct.unpack_from("<IIIII", data, at + 8)
            packets.append((iface, (hi << 32) | lo, data[at + 28:at + 28 + cap], orig))
        at += n
    return ifaces, packets


def tcp_fields(pkt):
    """(sport, dport, seq, ack, flags, ip checksum ok) of a raw IPv4/TCP packet."""
    ihl = (pkt[0] & 0x0F) * 4
    words = struct.unpack(f"!{ihl // 2}H", pkt[:ihl])
    total = sum(words)
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    sport, dport, seq, ack, _, flags = struct.unpack_from("!HHIIBB", pkt, ihl)
    return sport, dport, seq, ack, flags, total == 0xFFFF


@pytest.fixture
def short_chain(tmp_path):
    sc = tmp_path / "chain.toml"
    sc.write_text((EXAMPLES / "chain7.toml").read_text())
    return sc


@pytest.mark.core
def test_the_default_trace_is_each_flows_sender_with_every_retransmission_once(real_core, capsys, tmp_path,
                                                                                 short_chain):
    pcap = tmp_path / "t.pcapng"
    code, out, err = run_cli(capsys, "run", short_chain, "--set", "duration_s=20", "--seed", "3", "--pcap", pcap,
                             "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert "air" not in doc  # recorded for the trace, not asked for in the result
    flow = doc["flows"][0]
    assert flow["retransmissions"] > 5
    ifaces, packets = read_pcapng(pcap)
    assert [name for _, name in ifaces] == [f"node {i}" for i in range(8)] and {lt for lt, _ in ifaces} == {101}
    assert {p[0] for p in packets} == {0}  # the flow's sender alone
    times = [p[1] for p in packets]
    assert times == sorted(times)
    seen, resent, data, acks = set(), 0, 0, 0
    for _, _, pkt, orig in packets:
        sport, dport, seq, _, flags, ip_ok = tcp_fields(pkt)
        assert ip_ok and orig >= len(pkt)
        if sport == 80:
            acks += 1
            continue
        data += 1
        resent += seq in seen
        seen.add(seq)
    assert resent == flow["retransmissions"]
    assert data == flow["packets_sent"]  # the SYN included
    # the same run, plain: the same result
    code, out2, _ = run_cli(capsys, "run", short_chain, "--set", "duration_s=20", "--seed", "3", "--json")
    plain = json.loads(out2)
    assert {k: v for k, v in plain.items() if k != "wall_time_s"} == {k: v for k, v in doc.items()
                                                                      if k != "wall_time_s"}
    code, out, err = run_cli(capsys, "run", short_chain, "--set", "duration_s=1", "--pcap", pcap)
    assert code == 0 and "the sources' view" in out and "--pcap-view network" in out, err


@pytest.mark.core
@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (apt-get install tshark)")
def test_wiresharks_tcp_analysis_counts_the_flows_retransmissions(real_core, capsys, tmp_path, short_chain):
    def flagged(path):
        out = subprocess.run(["tshark", "-r", str(path), "-Y", "tcp.analysis.retransmission or "
                              "tcp.analysis.out_of_order", "-T", "fields", "-e", "tcp.srcport"],
                             capture_output=True, text=True, check=True).stdout.split()
        return len(out)

    sources, network = tmp_path / "s.pcapng", tmp_path / "n.pcapng"
    code, out, err = run_cli(capsys, "run", short_chain, "--set", "duration_s=30", "--pcap", sources, "--json")
    assert code == 0, err
    retx = json.loads(out)["flows"][0]["retransmissions"]
    assert retx > 5 and flagged(sources) == retx
    bad = subprocess.run(["tshark", "-r", str(sources), "-o", "ip.check_checksum:TRUE", "-Y",
                          "_ws.malformed or ip.checksum.status == 0 or tcp.analysis.lost_segment"],
                         capture_output=True, text=True, check=True).stdout
    assert bad == ""
    code, _, err = run_cli(capsys, "run", short_chain, "--set", "duration_s=30", "--pcap", network,
                           "--pcap-view", "network")
    assert code == 0, err
    assert flagged(network) > 20 * retx  # each segment once per node that handled it


@pytest.mark.core
def test_several_senders_and_air_kept_when_asked(real_core, capsys, tmp_path):
    sc = tmp_path / "grid.toml"
    sc.write_text('duration_s = 5\n[topology]\nkind = "grid"\nrows = 3\ncols = 3\n'
                  '[[flows]]\nsrc = 0\ndst = 8\ntransport = "tcp"\n[[flows]]\nsrc = 2\ndst = 6\ntransport = "tcp"\n'
                  '[[flows]]\nsrc = 4\ndst = 5\ntransport = "udp"\nrate_bps = 50000\n')
    pcap = tmp_path / "g.pcapng"
    code, out, err = run_cli(capsys, "run", sc, "--pcap", pcap, "--series", "air,cwnd", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert "air" in doc and "cwnd" in doc["time_series"]
    _, packets = read_pcapng(pcap)
    by_iface = {}
    for iface, _, pkt, _ in packets:
        by_iface.setdefault(iface, set()).add(struct.unpack_from("!H", pkt, 20)[0] if pkt[9] == 17
                                              else max(struct.unpack_from("!HH", pkt, 20)))
    assert by_iface == {0: {49152}, 2: {49153}, 4: {49154}}  # each sender: its own flow only
    udp = [p for p in packets if p[2][9] == 17]
    assert len(udp) == doc["flows"][2]["packets_sent"]


def test_view_options_refused_in_one_line(fake_core, capsys, scenario_file):
    for args, fragment in (
        (["--pcap-view", "network"], "--pcap-view network: give the trace file with --pcap FILE"),
        (["--pcap", "x.pcapng", "--pcap-view", "network", "--pcap-node", "1"],
         "--pcap-node 1 and --pcap-view network: give one of them"),
        (["--pcap", "x.pcapng", "--pcap-view", "air"], "'air' is not one of 'sources', 'network'"),
    ):
        code, out, err = run_cli(capsys, "run", scenario_file, *args)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and fragment in lines[0], err
