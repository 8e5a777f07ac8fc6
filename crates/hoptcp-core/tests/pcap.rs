//! The packet trace: pcapng with one interface per node (link type 127,
//! radiotap + 802.11, nanosecond timestamps), holding the frames each node
//! sent and received, parsed here by hand; then, if tshark is installed,
//! decoded by Wireshark's dissectors, and on a loss-free run filtered to one
//! node, checked by Wireshark's TCP analysis.

mod common;
use common::*;
use hoptcp_core::{run_scenario, RunOptions, RunReport};
use std::path::{Path, PathBuf};
use std::process::Command;

const DURATION_S: f64 = 3.0;

/// Nodes 0 — 1 — 2, 200 m apart, carrier sense cut to 250 m so 0 and 2 are
/// hidden from each other: RTS collisions, retries and retry flags appear.
/// A saturated CBR flow 0 → 1 (1460 B) and a TCP flow 2 → 0 through 1.
fn scenario() -> String {
    format!(
        "duration_s = {DURATION_S}\nseed = 4\n[topology]\nkind = \"chain\"\nhops = 2\nspacing_m = 200\n\
         [radio]\ncs_range_m = 250\n\n{}[[flows]]\nsrc = 2\ndst = 0\ntransport = \"tcp\"\n",
        cbr(0, 1, 2e6, 1460)
    )
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("hoptcp-test-{}-{name}.pcapng", std::process::id()))
}

fn run_with_pcap(text: &str, path: &Path) -> RunReport {
    run_scenario(text, &[], &RunOptions { seed: None, pcap: Some(path.to_path_buf()), pcap_node: None }).unwrap()
}

struct Record {
    iface: u32,
    ts_ns: u64,
    orig_len: u32,
    data: Vec<u8>,
}

struct Iface {
    link_type: u16,
    snaplen: u32,
    name: String,
    ts_resol: Option<u8>,
}

/// A minimal reader of little-endian pcapng files (one section).
fn read_pcapng(bytes: &[u8]) -> (Vec<Iface>, Vec<Record>) {
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    let u16_at = |i: usize| u16::from_le_bytes(bytes[i..i + 2].try_into().unwrap());
    assert_eq!(u32_at(0), 0x0a0d_0d0a, "starts with a section header block");
    assert_eq!(u32_at(8), 0x1a2b_3c4d, "byte-order magic (little-endian)");
    assert_eq!((u16_at(12), u16_at(14)), (1, 0), "pcapng version 1.0");
    let (mut ifaces, mut recs) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < bytes.len() {
        let (kind, len) = (u32_at(i), u32_at(i + 4) as usize);
        assert!(len >= 12 && len % 4 == 0 && i + len <= bytes.len(), "block at {i}: length {len}");
        assert_eq!(u32_at(i + len - 4) as usize, len, "block at {i}: trailing length");
        let body = i + 8;
        match kind {
            0x0a0d_0d0a => {}
            1 => {
                let mut iface =
                    Iface { link_type: u16_at(body), snaplen: u32_at(body + 4), name: String::new(), ts_resol: None };
                let mut o = body + 8;
                while o < i + len - 4 {
                    let (code, olen) = (u16_at(o), u16_at(o + 2) as usize);
                    let val = &bytes[o + 4..o + 4 + olen];
                    match code {
                        0 => break,
                        2 => iface.name = String::from_utf8(val.to_vec()).unwrap(),
                        9 => iface.ts_resol = Some(val[0]),
                        _ => {}
                    }
                    o += 4 + olen.div_ceil(4) * 4;
                }
                ifaces.push(iface);
            }
            6 => {
                let (iface, hi, lo, incl, orig) =
                    (u32_at(body), u32_at(body + 4), u32_at(body + 8), u32_at(body + 12), u32_at(body + 16));
                assert!((iface as usize) < ifaces.len(), "packet on undeclared interface {iface}");
                assert!(incl <= ifaces[iface as usize].snaplen && incl <= orig, "incl {incl} orig {orig}");
                let start = body + 20;
                recs.push(Record {
                    iface,
                    ts_ns: ((hi as u64) << 32) | lo as u64,
                    orig_len: orig,
                    data: bytes[start..start + incl as usize].to_vec(),
                });
            }
            other => panic!("unexpected block type {other:#x} at {i}"),
        }
        i += len;
    }
    (ifaces, recs)
}

/// (frame control byte, transmitter) of a record; CTS and ACK name only
/// their receiver, so they were sent by the interface's node iff that is
/// not the receiver.
fn sent_by(rec: &Record) -> bool {
    let fc = &rec.data[14..];
    let (ra, ta) = (fc[9], fc.get(15).copied());
    match fc[0] {
        0xc4 | 0xd4 => ra as u32 != rec.iface,
        _ => ta.map(|t| t as u32) == Some(rec.iface),
    }
}

/// One's-complement sum of a header including its checksum: 0xffff if valid.
fn ipv4_checksum_ok(h: &[u8]) -> bool {
    let mut sum: u32 = h.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum == 0xffff
}

fn mac(node: u8) -> [u8; 6] {
    [0x02, 0, 0, 0, 0, node]
}

#[test]
fn records_match_the_frames_sent_and_received_and_decode() {
    let path = temp("main");
    let r = run_with_pcap(&scenario(), &path);
    let bytes = std::fs::read(&path).unwrap();
    let (ifaces, recs) = read_pcapng(&bytes);

    assert_eq!(ifaces.len(), r.nodes.len(), "one interface per node");
    for (i, f) in ifaces.iter().enumerate() {
        assert_eq!((f.link_type, f.name.as_str(), f.ts_resol), (127, format!("node {i}").as_str(), Some(9)));
    }
    let sent = |f: fn(&hoptcp_core::NodeReport) -> u64| node_sum(&r, f);
    let (rts, cts, data, ack) =
        (sent(|n| n.mac.rts_sent), sent(|n| n.mac.cts_sent), sent(|n| n.mac.data_sent), sent(|n| n.mac.ack_sent));
    println!("{} records; RTS {rts} CTS {cts} DATA {data} ACK {ack}", recs.len());
    assert!(sent(|n| n.mac.cts_timeouts) > 0, "scenario meant to exercise retries");

    // Per node: what it sent is exactly its MAC's counters; the rest was received.
    let mut received = 0u64;
    for n in &r.nodes {
        let mut kinds = [0u64; 4];
        for rec in recs.iter().filter(|x| x.iface == n.id && sent_by(x)) {
            kinds[match rec.data[14] {
                0xb4 => 0,
                0xc4 => 1,
                0x08 => 2,
                _ => 3,
            }] += 1;
        }
        assert_eq!(kinds, [n.mac.rts_sent, n.mac.cts_sent, n.mac.data_sent, n.mac.ack_sent], "node {}", n.id);
        received += recs.iter().filter(|x| x.iface == n.id && !sent_by(x)).count() as u64;
    }
    // Every frame received was addressed to its receiver; fewer than were sent (collisions).
    assert!(received > 0 && received < rts + cts + data + ack, "{received} received records");
    for rec in recs.iter().filter(|x| !sent_by(x)) {
        assert_eq!(rec.data[14 + 9] as u32, rec.iface, "a received frame addressed to its node");
    }

    let mut retry_rts = 0u64;
    let mut last_ts = 0;
    let (mut udp, mut tcp) = (0, 0);
    for (k, rec) in recs.iter().enumerate() {
        let d = &rec.data;
        assert!(rec.ts_ns >= last_ts, "record {k}: time goes backwards");
        last_ts = rec.ts_ns;
        // Radiotap: version 0, length 14, present = flags | rate | channel.
        assert_eq!(d[0], 0, "record {k}: radiotap version");
        assert_eq!(u16::from_le_bytes([d[2], d[3]]), 14, "record {k}: radiotap length");
        assert_eq!(u32::from_le_bytes(d[4..8].try_into().unwrap()), 0x0e, "record {k}: radiotap present flags");
        let rate_500k = d[9];
        let fc = &d[14..];
        let duration_us = u16::from_le_bytes([fc[2], fc[3]]);
        let retry = fc[1] & 0x08 != 0;
        match fc[0] {
            0xb4 => {
                retry_rts += (retry && sent_by(rec)) as u64;
                assert_eq!(d.len(), 14 + 16, "RTS length");
                assert_eq!(rate_500k, 2, "RTS at the 1 Mb/s basic rate");
                // NAV = 3 SIFS + CTS + DATA + ACK = 638 µs + DATA airtime:
                // 6280 µs (1488 B UDP), 6328 µs (1500 B TCP), 488 µs (40 B ACK).
                assert!([638 + 6280, 638 + 6328, 638 + 488].contains(&duration_us), "RTS duration {duration_us}");
            }
            0xc4 | 0xd4 => {
                assert_eq!(d.len(), 14 + 10, "CTS/ACK length");
                assert_eq!(rate_500k, 2, "CTS/ACK at the basic rate");
                if fc[0] == 0xd4 {
                    assert_eq!(duration_us, 0, "ACK duration");
                } else {
                    // The RTS's NAV minus SIFS and the CTS itself.
                    assert!([324 + 6280, 324 + 6328, 324 + 488].contains(&duration_us), "CTS duration {duration_us}");
                }
            }
            0x08 => {
                assert_eq!(rate_500k, 4, "DATA at 2 Mb/s");
                assert_eq!(duration_us, 10 + 304, "DATA duration = SIFS + ACK");
                assert_eq!(&fc[24..32], &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00], "LLC/SNAP IPv4");
                let ip = &fc[32..];
                assert_eq!(ip[0], 0x45, "IPv4, 20-byte header");
                assert!(ipv4_checksum_ok(&ip[..20]), "record {k}: bad IPv4 header checksum {:02x?}", &ip[..20]);
                let total_len = u16::from_be_bytes([ip[2], ip[3]]) as u32;
                assert_eq!(rec.orig_len, 14 + 24 + 8 + total_len, "record {k}: original length");
                assert_eq!(&ip[12..14], &[10, 0], "source in 10.0/16");
                let (src, dst) = (ip[15] - 1, ip[19] - 1);
                match ip[9] {
                    17 => {
                        udp += 1;
                        assert_eq!((src, dst, total_len), (0, 1, 1488), "UDP packet");
                        assert_eq!(&fc[4..10], &mac(1), "receiver address");
                    }
                    6 => {
                        tcp += 1;
                        assert!((src, dst) == (2, 0) || (src, dst) == (0, 2), "TCP {src} -> {dst}");
                        assert!(total_len == 1500 || total_len == 40, "TCP packet of {total_len} bytes");
                    }
                    p => panic!("record {k}: IP protocol {p}"),
                }
            }
            other => panic!("record {k}: frame control {other:#04x}"),
        }
    }
    assert!(udp > 0 && tcp > 0);
    assert!(last_ts <= (DURATION_S * 1e9) as u64);
    // Every CTS timeout that did not end in a drop is followed by a
    // retransmitted RTS carrying the retry flag (slack: one per node for a
    // retransmission still pending when the run ends).
    let expected_retry = sent(|n| n.mac.cts_timeouts) - sent(|n| n.mac.drops_rts_retry);
    println!("RTS with the retry flag: {retry_rts}, CTS timeouts not ending in a drop: {expected_retry}");
    assert!(
        retry_rts <= expected_retry && retry_rts + 3 >= expected_retry,
        "{retry_rts} RTS retries flagged vs {expected_retry}"
    );

    tshark_check(&path, recs.len(), recs.iter().filter(|x| x.data[14] == 0x08).count() as u64);
    std::fs::remove_file(&path).ok();
}

/// TCP numbers as bytes: the SYN has its own sequence number, data starts
/// one byte after it, data segments carry ACK, the receiver answers the SYN
/// with a SYN-ACK and then acknowledges bytes.
#[test]
fn tcp_segments_number_bytes_like_a_real_connection() {
    let path = temp("tcp-numbers");
    run_with_pcap(&tcp_chain(1, 3), &path);
    let (_, recs) = read_pcapng(&std::fs::read(&path).unwrap());
    std::fs::remove_file(&path).ok();
    // The source's own transmissions and receptions, in order.
    let tcp: Vec<(u32, u32, u8, u16)> = recs
        .iter()
        .filter(|r| r.iface == 0 && r.data[14] == 0x08 && r.data.len() >= 14 + 32 + 40)
        .filter(|r| r.data[14 + 32 + 9] == 6 && r.data[14 + 1] & 0x08 == 0) // TCP, not a MAC retry
        .map(|r| {
            let t = &r.data[14 + 32 + 20..];
            let u32be = |i: usize| u32::from_be_bytes(t[i..i + 4].try_into().unwrap());
            let total = u16::from_be_bytes([r.data[14 + 32 + 2], r.data[14 + 32 + 3]]);
            (u32be(4), u32be(8), t[13], total - 40)
        })
        .collect();
    let (syn, ack) = (0x02u8, 0x10u8);
    assert_eq!(tcp[0], (0, 0, syn, 0), "SYN with sequence 0, no ACK");
    assert_eq!(tcp[1], (0, 1, syn | ack, 0), "SYN-ACK acknowledging the SYN");
    assert_eq!(tcp[2], (1, 1, ack, 1460), "first data segment at byte 1, with ACK");
    let data: Vec<_> = tcp.iter().filter(|s| s.3 > 0).collect();
    for (k, s) in data.iter().enumerate().take(20) {
        assert_eq!(s.0, 1 + 1460 * k as u32, "data segment {k}");
    }
    let acks: Vec<_> = tcp.iter().skip(2).filter(|s| s.3 == 0).collect();
    assert!(acks.iter().all(|a| a.0 == 1 && a.2 == ack && (a.1 - 1) % 1460 == 0), "acks name bytes");
}

/// `hops`-hop chain, one TCP flow end to end, window `window`: no loss.
fn tcp_chain(hops: u32, window: u32) -> String {
    format!(
        "duration_s = 4\nseed = 2\n[topology]\nkind = \"chain\"\nhops = {hops}\nspacing_m = 200\n\
         [tcp]\nmax_window = {window}\n[[flows]]\nsrc = 0\ndst = {hops}\ntransport = \"tcp\"\n"
    )
}

/// On a run without TCP loss, each endpoint's interface alone passes
/// Wireshark's TCP analysis without a single note (no retransmission, no
/// duplicate ACK, no segment not captured, no ACK of an unseen segment).
#[test]
fn tshark_tcp_analysis_is_clean_per_node() {
    let Some(_) = tshark_version() else {
        println!("tshark not installed: skipping Wireshark's TCP analysis");
        return;
    };
    let path = temp("analysis");
    let r = run_with_pcap(&tcp_chain(3, 4), &path);
    let f = &r.flows[0];
    let tcp = f.tcp.as_ref().unwrap();
    assert_eq!((tcp.retransmissions, tcp.timeouts), (0, 0), "the run is meant to be loss-free");
    assert!(f.packets_delivered > 100);
    for node in [0, 3] {
        let one = temp(&format!("analysis-node{node}"));
        let out = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&path)
            .args(["-Y", &format!("frame.interface_id == {node}"), "-w"])
            .arg(&one)
            .output()
            .expect("tshark runs");
        assert!(out.status.success(), "tshark could not filter: {}", String::from_utf8_lossy(&out.stderr));
        let flagged = tshark_fields(&one, "tcp.analysis.flags || _ws.expert.severity >= \"Warning\"", "frame.number");
        let segments = tshark_fields(&one, "tcp", "frame.number");
        println!("node {node}: {} TCP segments, {} flagged by Wireshark's analysis", segments.len(), flagged.len());
        assert!(segments.len() as u64 > f.packets_delivered, "node {node}: every segment and its ACK");
        assert!(
            flagged.is_empty(),
            "node {node}: frames with TCP analysis notes: {:?}",
            &flagged[..flagged.len().min(10)]
        );
        std::fs::remove_file(&one).ok();
    }
    std::fs::remove_file(&path).ok();
}

fn tshark_version() -> Option<String> {
    let out = Command::new("tshark").arg("-v").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string())
}

/// `field` of every frame matching `filter` (two-pass, so the analysis sees all frames first).
fn tshark_fields(path: &Path, filter: &str, field: &str) -> Vec<String> {
    let out = Command::new("tshark")
        .args(["-n", "-2", "-r"])
        .arg(path)
        .args(["-R", filter, "-T", "fields", "-e", field])
        .output()
        .expect("tshark runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed on {filter:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn same_seed_same_trace() {
    let (a, b) = (temp("a"), temp("b"));
    run_with_pcap(&scenario(), &a);
    run_with_pcap(&scenario(), &b);
    let (ba, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(ba.len() > 10_000);
    assert!(ba == bb, "two runs with one seed wrote different traces");
    std::fs::remove_file(&a).ok();
    std::fs::remove_file(&b).ok();
}

fn tshark_check(path: &Path, records: usize, data_frames: u64) {
    if tshark_version().is_none() {
        println!("tshark not installed: skipping the dissector check");
        return;
    }
    let tshark = |filter: &str| -> Vec<String> {
        let out = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(path)
            .args(["-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"])
            .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
            .output()
            .expect("tshark runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "tshark failed on {filter:?}: {stderr}");
        for line in stderr.lines() {
            let l = line.to_lowercase();
            assert!(!(l.contains("error") || l.contains("malformed") || l.contains("cut short")), "tshark: {line}");
        }
        String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
    };
    assert_eq!(tshark("frame").len(), records, "tshark sees another number of frames");
    let bad = tshark(
        "_ws.malformed || _ws.expert.severity == \"Error\" || ip.checksum.status == \"Bad\" \
         || udp.checksum.status == \"Bad\" || tcp.checksum.status == \"Bad\"",
    );
    assert!(bad.is_empty(), "frames tshark flags as malformed or with bad checksums: {:?}", &bad[..bad.len().min(10)]);
    // The checksum fields exist and are verified on every DATA frame.
    assert_eq!(tshark("ip.checksum.status == \"Good\"").len() as u64, data_frames);
    assert_eq!(
        tshark("wlan.fc.type_subtype == 0x1b").len()
            + tshark("wlan.fc.type_subtype == 0x1c").len()
            + tshark("wlan.fc.type_subtype == 0x1d").len()
            + tshark("wlan.fc.type_subtype == 0x20").len(),
        records
    );
    println!("tshark decoded {records} frames: no malformed frame, no bad checksum");
}

#[test]
fn checksum_helper_accepts_valid_and_rejects_corrupt_headers() {
    // The classic example header (192.168.0.1 -> 192.168.0.199, checksum 0xb861).
    let mut h = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
        0x00, 0xc7,
    ];
    assert!(ipv4_checksum_ok(&h));
    h[8] = 0x3f; // TTL changed, checksum not updated
    assert!(!ipv4_checksum_ok(&h));
}

/// AODV messages appear as UDP port 654 in their RFC 3561 layout: a RREQ
/// flood (broadcast at the basic rate), the RREP relayed back hop by hop.
#[test]
fn aodv_messages_are_udp_654_in_rfc_3561_layout() {
    let text = format!(
        "duration_s = 2\nseed = 1\n[topology]\nkind = \"chain\"\nhops = 3\nspacing_m = 200\n\
         [routing]\nprotocol = \"aodv\"\n{}",
        cbr(0, 3, 8000.0, 100)
    );
    let path = temp("aodv");
    let r = run_with_pcap(&text, &path);
    let (_, recs) = read_pcapng(&std::fs::read(&path).unwrap());
    let (mut rreq, mut rrep, mut records) = (0u64, 0u64, 0u64);
    for rec in &recs {
        let fc = &rec.data[14..];
        if fc[0] != 0x08 || fc.len() < 32 + 28 + 4 || fc[32 + 9] != 17 {
            continue;
        }
        let (ip, udp) = (&fc[32..52], &fc[52..60]);
        if u16::from_be_bytes([udp[2], udp[3]]) != 654 {
            continue;
        }
        records += 1;
        assert_eq!(u16::from_be_bytes([udp[0], udp[1]]), 654, "source port");
        assert!(ipv4_checksum_ok(ip));
        let msg = &fc[60..];
        let total_len = u16::from_be_bytes([ip[2], ip[3]]) as usize;
        assert_eq!(rec.orig_len as usize, 14 + 24 + 8 + total_len);
        let sent = sent_by(rec);
        match msg[0] {
            1 => {
                rreq += sent as u64;
                assert_eq!(total_len, 20 + 8 + 24, "RREQ length");
                assert_eq!(&fc[4..10], &[0xff; 6], "RREQ to the broadcast address");
                assert_eq!(&ip[16..20], &[255, 255, 255, 255]);
                assert_eq!(rec.data[9], 2, "broadcast at the 1 Mb/s basic rate");
                assert_eq!(&msg[8..12], &[10, 0, 0, 4], "destination node 3");
                assert_eq!(&msg[16..20], &[10, 0, 0, 1], "originator node 0");
            }
            2 => {
                rrep += sent as u64;
                assert_eq!(total_len, 20 + 8 + 20, "RREP length");
                assert_eq!(&ip[16..20], &[10, 0, 0, 1], "RREP back to the originator");
                assert_eq!(&msg[4..8], &[10, 0, 0, 4], "route to node 3");
                assert_eq!(u32::from_be_bytes(msg[16..20].try_into().unwrap()), 10_000, "lifetime 10 s in ms");
            }
            t => panic!("AODV type {t}"),
        }
    }
    let routing = r.routing.as_ref().expect("AODV report");
    assert_eq!(rreq, routing.totals.rreq_sent + routing.totals.rreq_forwarded);
    assert_eq!(rrep, routing.totals.rrep_sent + routing.totals.rrep_forwarded);
    assert!(rreq >= 3 && rrep == 3, "one flood, one reply over 3 hops: {rreq} RREQ, {rrep} RREP frames sent");
    if tshark_version().is_some() {
        let types = tshark_fields(&path, "aodv.type == 1 || aodv.type == 2", "aodv.type");
        assert_eq!(types.len() as u64, records, "Wireshark decodes every AODV message");
    }
    std::fs::remove_file(&path).ok();
}

/// A trace of one node (`pcap_node`) holds exactly that node's records of
/// the merged trace, on a single interface named after it; with tshark, its
/// TCP analysis flags nothing on a loss-free run, with no filtering.
#[test]
fn per_node_trace_is_that_nodes_interface_alone() {
    let (all, one) = (temp("merged"), temp("node1"));
    let text = tcp_chain(3, 4);
    run_with_pcap(&text, &all);
    let opts = RunOptions { seed: None, pcap: Some(one.clone()), pcap_node: Some(1) };
    run_scenario(&text, &[], &opts).unwrap();
    let (ifaces_all, recs_all) = read_pcapng(&std::fs::read(&all).unwrap());
    let (ifaces, recs) = read_pcapng(&std::fs::read(&one).unwrap());
    assert_eq!(ifaces_all.len(), 4);
    assert_eq!(ifaces.len(), 1);
    assert_eq!(ifaces[0].name, "node 1");
    let expected: Vec<_> = recs_all.iter().filter(|r| r.iface == 1).collect();
    assert!(expected.len() > 100, "node 1 forwards the flow");
    assert_eq!(recs.len(), expected.len());
    for (a, b) in recs.iter().zip(&expected) {
        assert_eq!((a.iface, a.ts_ns, a.orig_len, &a.data), (0, b.ts_ns, b.orig_len, &b.data));
    }
    if tshark_version().is_some() {
        let end = temp("node3");
        let opts = RunOptions { seed: None, pcap: Some(end.clone()), pcap_node: Some(3) };
        run_scenario(&text, &[], &opts).unwrap();
        let flagged = tshark_fields(&end, "tcp.analysis.flags || _ws.expert.severity >= \"Warning\"", "frame.number");
        assert!(tshark_fields(&end, "tcp", "frame.number").len() > 100);
        assert!(
            flagged.is_empty(),
            "TCP analysis notes in node 3's own trace: {:?}",
            &flagged[..flagged.len().min(10)]
        );
        std::fs::remove_file(&end).ok();
    }
    std::fs::remove_file(&all).ok();
    std::fs::remove_file(&one).ok();
}

#[test]
fn per_node_trace_of_a_node_that_does_not_exist_is_refused() {
    let path = temp("no-node");
    let opts = RunOptions { seed: None, pcap: Some(path.clone()), pcap_node: Some(4) };
    match run_scenario(&tcp_chain(3, 4), &[], &opts) {
        Err(hoptcp_core::RunError::Scenario(e)) => {
            assert_eq!(e.message, "`pcap_node` = 4: the scenario's wireless nodes are 0 to 3")
        }
        other => panic!("expected a scenario error, got {:?}", other.map(|r| r.events)),
    }
    assert!(!path.exists(), "nothing written");
}

/// A trace that cannot be written (a full disk) fails the run with the
/// system's reason, not the pcap library's generic words.
#[test]
fn a_trace_on_a_full_disk_says_the_write_failed() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        println!("no /dev/full here: skipped");
        return;
    }
    let opts = RunOptions { seed: None, pcap: Some(full.to_path_buf()), pcap_node: None };
    match run_scenario(&tcp_chain(3, 4), &[], &opts) {
        Err(hoptcp_core::RunError::Io(e)) => {
            assert_eq!(e.kind(), std::io::ErrorKind::StorageFull, "{e}");
            assert!(!e.to_string().contains("Error reading bytes"), "{e}");
        }
        other => panic!("expected a write error, got {:?}", other.map(|r| r.events)),
    }
}

/// SACK ACKs carry their blocks as a real SACK option, in exactly the bytes
/// the profile counts: the TCP header's length covers them, the IP length
/// agrees, and Wireshark reads the edges (byte numbers of packet edges).
#[test]
fn sack_acks_carry_a_sack_option_of_their_counted_size() {
    for (profile, layout) in [("rfc6675", 2usize), ("ns2_sack1", 0)] {
        let path = temp(&format!("sack-{profile}"));
        let text = tcp_chain(3, 32)
            .replace("[tcp]\n", &format!("[tcp]\nsack = true\nsack_profile = \"{profile}\"\n"))
            .replace("duration_s = 4", "duration_s = 20");
        run_with_pcap(&text, &path);
        let (_, recs) = read_pcapng(&std::fs::read(&path).unwrap());
        let mut with_sack = 0;
        for r in recs.iter().filter(|r| r.data[14] == 0x08 && r.data.len() >= 14 + 32 + 40) {
            let ip = &r.data[14 + 32..];
            if ip[9] != 6 {
                continue;
            }
            let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
            let t = &ip[20..];
            let hdr = (t[12] >> 4) as usize * 4;
            if hdr > 20 && total == 20 + hdr {
                let o = &t[20..hdr];
                with_sack += 1;
                if o.iter().all(|&b| b == 1) {
                    assert_eq!((profile, o.len()), ("ns2_sack1", 8), "only ns-2's one block is NOPs alone");
                    continue;
                }
                assert_eq!(o[layout], 5, "{profile}: SACK option at {layout}: {o:?}");
                let n = (o[layout + 1] as usize - 2) / 8;
                let right = u32::from_be_bytes(o[layout + 6..layout + 10].try_into().unwrap());
                assert!(n >= 1 && (right - 1) % 1460 == 0, "{profile}: edges name packet boundaries");
            }
        }
        assert!(with_sack > 0, "{profile}: the run is meant to lose packets and send SACK blocks");
        if tshark_version().is_some() {
            let sack = tshark_fields(&path, "tcp.options.sack_le", "frame.number");
            let bad = tshark_fields(&path, "_ws.malformed || _ws.expert.severity >= \"Error\"", "frame.number");
            assert!(bad.is_empty(), "{profile}: malformed {bad:?}");
            assert!(profile != "rfc6675" || !sack.is_empty(), "Wireshark reads the SACK blocks");
        }
        std::fs::remove_file(&path).ok();
    }
}
