//! The sender running BBR (`congestion/bbr.rs`).

use super::super::config::{TcpConfig, Variant};
use super::super::congestion::bbr::model::BbrState;
use super::testutil::*;
use super::TcpSender;
use crate::engine::{Time, NS_PER_S};

fn cfg() -> TcpConfig {
    TcpConfig {
        variant: Variant::Bbr,
        initial_window: 10,
        max_window: 10_000,
        bbr_phases: vec![0],
        ..TcpConfig::default()
    }
}

/// Setup segment at 1 s, its ACK 40 ms later: the first 10 data packets leave at once.
fn opened() -> (TcpSender, Time) {
    let mut s = TcpSender::new(&cfg());
    let t0 = NS_PER_S;
    s.add_data(t0, u64::MAX);
    assert_eq!(seqs(&drain(&mut s, t0)), vec![0]);
    let t = t0 + 40 * MS;
    assert_eq!(ack_and_send(&mut s, t, ack(0)), (1..=10).collect::<Vec<_>>(), "the initial window, unpaced");
    (s, t)
}

#[test]
fn the_setup_ack_opens_bbr_with_its_rtt() {
    let (s, _) = opened();
    let b = s.bbr().expect("open");
    assert_eq!(b.state(), BbrState::Startup);
    assert_eq!(b.rt_prop(), 40 * MS, "the setup segment's RTT");
    // 2.89 x 10 packets / 40 ms.
    assert!((b.pacing_rate() - 2.89 * 250.0).abs() < 1e-9);
}

#[test]
fn after_the_initial_window_sends_are_paced() {
    let (mut s, t) = opened();
    // cwnd 10 is full: the next deadline is the retransmission timer's.
    assert!(drain(&mut s, t).is_empty());
    assert_eq!(s.next_timer(), Some(t + s.rto()));
    let t1 = t + 40 * MS;
    // ACK 1 grows cwnd to 11 and opens room for two packets (one freed, one grown).
    s.on_segment(t1, &ack(1));
    let first = drain(&mut s, t1);
    assert_eq!(seqs(&first), vec![11], "one packet, then the pacer holds the next");
    let gap = s.bbr().unwrap().pacing_interval();
    assert_eq!(s.next_timer(), Some(t1 + gap), "the pacing release is the next deadline");
    assert!(drain(&mut s, t1 + gap - 1).is_empty());
    assert_eq!(seqs(&drain(&mut s, t1 + gap)), vec![12]);
}

#[test]
fn third_dupack_retransmits_and_recovery_conserves_then_restores() {
    let (mut s, t) = opened();
    let mut now = t;
    for p in 1..=5 {
        now += MS;
        s.on_segment(now, &ack(p));
        drain(&mut s, now);
    }
    let before = s.cwnd();
    for _ in 0..2 {
        let sent = ack_and_send(&mut s, now, ack(5));
        assert!(sent.iter().all(|&p| p > 6), "no retransmission before the third: {sent:?}");
    }
    let in_flight = s.max_sent().unwrap() - 5;
    let sent = ack_and_send(&mut s, now, ack(5));
    assert_eq!(sent.first(), Some(&6), "fast retransmit of the first missing packet");
    assert_eq!(s.stats(now).fast_retransmits, 1);
    assert_eq!(s.cwnd(), in_flight as f64 + 1.0, "packet conservation: in flight + 1");
    // A partial ACK retransmits the next hole at once.
    let partial = ack_and_send(&mut s, now + MS, ack(6));
    assert_eq!(partial.first(), Some(&7));
    // The full ACK ends recovery: the cwnd saved on entry comes back. This
    // ACK adds nothing: cwnd is above BBR's target and the initial window
    // has been delivered.
    let high = s.max_sent().unwrap();
    s.on_segment(now + 2 * MS, &ack(high));
    let b = s.bbr().unwrap();
    assert!(before >= b.inflight(b.cwnd_gain()), "{before}");
    assert_eq!(s.cwnd(), before);
}

#[test]
fn timeout_sets_one_packet_and_goes_back() {
    let (mut s, _) = opened();
    // Nothing is acknowledged: the retransmission timer is the next deadline.
    let now = s.next_timer().expect("armed");
    s.on_timer(now);
    assert_eq!(s.stats(now).timeouts, 1);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(seqs(&drain(&mut s, now)), vec![1], "go back to the first unacknowledged packet");
}

#[test]
fn bbr_stats_count_time_per_state() {
    let (s, t) = opened();
    let st = s.stats(t + NS_PER_S).bbr.expect("bbr stats");
    assert!((st.state_s[0] - 1.0).abs() < 1e-9, "{:?}", st.state_s);
    assert_eq!(st.state_s[1..], [0.0, 0.0, 0.0]);
    assert!((st.rt_prop_s - 0.04).abs() < 1e-12);
}
