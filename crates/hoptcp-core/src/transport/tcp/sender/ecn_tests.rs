//! The sender's ECN response (ns-2 `TcpAgent::ecn()`, shared by every variant).

use super::super::config::TcpConfig;
use super::testutil::*;
use super::TcpSender;
use crate::engine::Time;

fn ecn_at_window_8() -> TcpSender {
    let c = TcpConfig { ecn: true, initial_ssthresh: 1000, ..TcpConfig::default() };
    let mut s = TcpSender::new(&c);
    s.add_data(0, u64::MAX);
    let syn = drain(&mut s, 0);
    assert!(syn[0].syn && !syn[0].ect, "the setup segment is not ECT");
    let mut now = 100 * MS;
    let first = {
        s.on_segment(now, &ack(0));
        drain(&mut s, now)
    };
    assert!(first.iter().all(|x| x.ect && !x.cwr));
    for p in 1..=6 {
        now += MS;
        ack_and_send(&mut s, now, ack(p));
    }
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(s.max_sent(), Some(14));
    s
}

/// The window of 8 and, at 200 ms, an ACK of `p` with ECN-Echo.
fn ecn_echo_at_200ms(p: u64) -> (TcpSender, Time) {
    let mut s = ecn_at_window_8();
    let t: Time = 200 * MS;
    s.on_segment(t, &ack_ece(p));
    (s, t)
}

#[test]
fn halves_once_per_window_and_sets_cwr() {
    let mut s = ecn_at_window_8();
    let t: Time = 200 * MS;
    // Every ACK of the window carries ECN-Echo.
    s.on_segment(t, &ack_ece(7));
    assert_eq!(s.cwnd(), 4.0);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(s.stats(t).ecn_reductions, 1);
    assert!(drain(&mut s, t).is_empty());
    let mut sent = Vec::new();
    for p in 8..=14 {
        s.on_segment(t, &ack_ece(p));
        sent.extend(drain(&mut s, t));
    }
    // Once per window: no further cut, and no growth on ECE ACKs.
    assert_eq!(s.stats(t).ecn_reductions, 1);
    assert_eq!(s.cwnd(), 4.0);
    // CWR on the first segment after the reduction only.
    assert_eq!(seqs(&sent), (15..=18).collect::<Vec<_>>());
    assert!(sent[0].cwr);
    assert!(sent[1..].iter().all(|x| !x.cwr && x.ect));
    // An ECE ACK for data sent after the reduction cuts again.
    s.on_segment(t, &ack_ece(15));
    assert_eq!(s.stats(t).ecn_reductions, 2);
    assert_eq!(s.cwnd(), 2.0);
    assert_eq!(s.ssthresh(), 2.0);
    assert_eq!(s.stats(t).retransmissions, 0);
}

#[test]
fn loss_in_a_window_already_cut_by_ecn_retransmits_without_second_cut() {
    let (mut s, t) = ecn_echo_at_200ms(6);
    assert_eq!(s.cwnd(), 4.0);
    drain(&mut s, t);
    // 7 lost: three more duplicates of 6 (the first was the ECE ACK).
    let mut sent = Vec::new();
    for _ in 0..3 {
        sent.extend(ack_and_send(&mut s, t, ack(6)));
    }
    assert_eq!(sent, vec![7]);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(s.stats(t).fast_retransmits, 0);
    assert_eq!(s.stats(t).retransmissions, 1);
}

#[test]
fn timeout_after_ecn_cut_keeps_ssthresh() {
    let (mut s, _) = ecn_echo_at_200ms(7);
    assert_eq!(s.ssthresh(), 4.0);
    let d = s.next_timer().unwrap();
    s.on_timer(d);
    // ns-2: ECN already halved ssthresh for this window, and nrexmit_ does not count
    // an expiry in ECN recovery.
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(s.stats(d).timeouts, 0);
    let v = drain(&mut s, d);
    assert_eq!(seqs(&v), vec![8]);
    assert!(v[0].cwr, "CWR after the window reduction");
}

#[test]
fn an_ecn_cut_at_one_packet_stalls_until_the_timer() {
    // ns-2.35: slowdown(CLOSE_CWND_HALF) with precisionReduce_ sets cwnd_ = windowd()/2 and
    // no floor; window() is 0 until the retransmission timer, whose timeout() restores one
    // packet without counting it (no data outstanding).
    let mut s = ecn_at_window_8();
    let mut t: Time = 200 * MS;
    let mut cuts = Vec::new();
    let mut top = s.max_sent().unwrap();
    while s.cwnd() >= 1.0 {
        s.on_segment(t, &ack_ece(top));
        cuts.push(s.cwnd());
        if let Some(m) = s.max_sent() {
            top = m;
        }
        drain(&mut s, t);
        top = s.max_sent().unwrap_or(top);
        t += MS;
    }
    assert_eq!(cuts, vec![4.0, 2.0, 1.0, 0.5]);
    assert!(drain(&mut s, t).is_empty(), "window() is 0 below one packet");
    let d = s.next_timer().expect("the timer is armed by the ACK");
    s.on_timer(d);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.stats(d).timeouts, 0);
    assert_eq!(drain(&mut s, d).len(), 1, "one packet after the timer");
}

#[test]
fn ece_ignored_without_ecn() {
    let c = TcpConfig { initial_ssthresh: 1000, ..TcpConfig::default() };
    let mut s = established(&c, 100 * MS);
    assert!(!s.poll_transmit(0).is_some_and(|x| x.ect));
    s.on_segment(200 * MS, &ack_ece(1));
    assert_eq!(s.cwnd(), 3.0);
    assert_eq!(s.stats(200 * MS).ecn_reductions, 0);
}
