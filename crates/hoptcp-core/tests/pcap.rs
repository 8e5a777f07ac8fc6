//! The pcap trace: nanosecond pcap, link type 127 (radiotap + 802.11), one
//! record per frame put on the air, parsed here by hand; then, if tshark is
//! installed, decoded by Wireshark's dissectors.

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
    std::env::temp_dir().join(format!("hoptcp-test-{}-{name}.pcap", std::process::id()))
}

fn run_with_pcap(path: &Path) -> RunReport {
    run_scenario(&scenario(), &[], &RunOptions { seed: None, pcap: Some(path.to_path_buf()) }).unwrap()
}

struct Record {
    ts_ns: u64,
    orig_len: u32,
    data: Vec<u8>,
}

/// A minimal reader of little-endian nanosecond pcap files.
fn read_pcap(bytes: &[u8]) -> (u32, Vec<Record>) {
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap());
    assert!(bytes.len() >= 24, "no global header");
    assert_eq!(u32_at(bytes, 0), 0xa1b2_3c4d, "magic (nanosecond pcap, little-endian)");
    assert_eq!((u16_at(bytes, 4), u16_at(bytes, 6)), (2, 4), "version");
    let snaplen = u32_at(bytes, 16);
    assert_eq!(u32_at(bytes, 20), 127, "link type: IEEE 802.11 + radiotap");
    let mut out = Vec::new();
    let mut i = 24;
    while i < bytes.len() {
        assert!(i + 16 <= bytes.len(), "truncated record header at {i}");
        let (sec, nsec, incl, orig) =
            (u32_at(bytes, i), u32_at(bytes, i + 4), u32_at(bytes, i + 8), u32_at(bytes, i + 12));
        assert!(nsec < 1_000_000_000, "nanoseconds field {nsec}");
        assert!(incl <= snaplen && incl <= orig, "incl {incl} orig {orig} snaplen {snaplen}");
        let start = i + 16;
        let end = start + incl as usize;
        assert!(end <= bytes.len(), "truncated record at {i}");
        out.push(Record {
            ts_ns: sec as u64 * 1_000_000_000 + nsec as u64,
            orig_len: orig,
            data: bytes[start..end].to_vec(),
        });
        i = end;
    }
    (snaplen, out)
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
fn records_match_the_frames_sent_and_decode() {
    let path = temp("main");
    let r = run_with_pcap(&path);
    let bytes = std::fs::read(&path).unwrap();
    let (snaplen, recs) = read_pcap(&bytes);

    let sent = |f: fn(&hoptcp_core::sim::report::NodeReport) -> u64| node_sum(&r, f);
    let (rts, cts, data, ack) =
        (sent(|n| n.mac.rts_sent), sent(|n| n.mac.cts_sent), sent(|n| n.mac.data_sent), sent(|n| n.mac.ack_sent));
    println!("{} records; RTS {rts} CTS {cts} DATA {data} ACK {ack}", recs.len());
    assert_eq!(recs.len() as u64, rts + cts + data + ack);
    assert!(sent(|n| n.mac.cts_timeouts) > 0, "scenario meant to exercise retries");

    let mut kinds = [0u64; 4];
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
                kinds[0] += 1;
                retry_rts += retry as u64;
                assert_eq!(d.len(), 14 + 16, "RTS length");
                assert_eq!(rate_500k, 2, "RTS at the 1 Mb/s basic rate");
                // NAV = 3 SIFS + CTS + DATA + ACK = 638 µs + DATA airtime:
                // 6280 µs (1488 B UDP), 6328 µs (1500 B TCP), 488 µs (40 B ACK).
                assert!([638 + 6280, 638 + 6328, 638 + 488].contains(&duration_us), "RTS duration {duration_us}");
            }
            0xc4 | 0xd4 => {
                kinds[if fc[0] == 0xc4 { 1 } else { 3 }] += 1;
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
                kinds[2] += 1;
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
                assert!(rec.data.len() as u32 <= snaplen);
            }
            other => panic!("record {k}: frame control {other:#04x}"),
        }
    }
    assert_eq!(kinds, [rts, cts, data, ack], "per-kind counts (RTS, CTS, DATA, ACK)");
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

    tshark_check(&path, recs.len(), data);
    std::fs::remove_file(&path).ok();
}

#[test]
fn same_seed_same_trace() {
    let (a, b) = (temp("a"), temp("b"));
    run_with_pcap(&a);
    run_with_pcap(&b);
    let (ba, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(ba.len() > 10_000);
    assert!(ba == bb, "two runs with one seed wrote different traces");
    std::fs::remove_file(&a).ok();
    std::fs::remove_file(&b).ok();
}

fn tshark_check(path: &Path, records: usize, data_frames: u64) {
    if Command::new("tshark").arg("-v").output().map(|o| !o.status.success()).unwrap_or(true) {
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
    let r = run_scenario(&text, &[], &RunOptions { seed: None, pcap: Some(path.clone()) }).unwrap();
    let (_, recs) = read_pcap(&std::fs::read(&path).unwrap());
    let (mut rreq, mut rrep) = (0, 0);
    for rec in &recs {
        let fc = &rec.data[14..];
        if fc[0] != 0x08 || fc.len() < 32 + 28 + 4 || fc[32 + 9] != 17 {
            continue;
        }
        let (ip, udp) = (&fc[32..52], &fc[52..60]);
        if u16::from_be_bytes([udp[2], udp[3]]) != 654 {
            continue;
        }
        assert_eq!(u16::from_be_bytes([udp[0], udp[1]]), 654, "source port");
        assert!(ipv4_checksum_ok(ip));
        let msg = &fc[60..];
        let total_len = u16::from_be_bytes([ip[2], ip[3]]) as usize;
        assert_eq!(rec.orig_len as usize, 14 + 24 + 8 + total_len);
        match msg[0] {
            1 => {
                rreq += 1;
                assert_eq!(total_len, 20 + 8 + 24, "RREQ length");
                assert_eq!(&fc[4..10], &[0xff; 6], "RREQ to the broadcast address");
                assert_eq!(&ip[16..20], &[255, 255, 255, 255]);
                assert_eq!(rec.data[9], 2, "broadcast at the 1 Mb/s basic rate");
                assert_eq!(&msg[8..12], &[10, 0, 0, 4], "destination node 3");
                assert_eq!(&msg[16..20], &[10, 0, 0, 1], "originator node 0");
            }
            2 => {
                rrep += 1;
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
    assert!(rreq >= 3 && rrep == 3, "one flood, one reply over 3 hops: {rreq} RREQ, {rrep} RREP frames");
    if Command::new("tshark").arg("-v").output().map(|o| o.status.success()).unwrap_or(false) {
        let out = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&path)
            .args(["-Y", "aodv.type == 1 || aodv.type == 2", "-T", "fields", "-e", "aodv.type"])
            .output()
            .expect("tshark runs");
        let lines = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(lines as u64, rreq + rrep, "Wireshark decodes every AODV message");
    }
    std::fs::remove_file(&path).ok();
}
