//! The sender's transmit path with TCP-AP pacing (`tcp_ap.rs`).

use super::super::config::TcpConfig;
use super::super::tcp_ap::{RateEstimator, TcpApConfig};
use super::testutil::{ack, drain, seqs, MS};
use super::TcpSender;
use crate::engine::Time;
use crate::wire::TcpSegment;

fn paced_sender(ap: TcpApConfig) -> TcpSender {
    let c = TcpConfig { pacing: Some(ap), initial_ssthresh: 1000, ..TcpConfig::default() };
    let mut s = TcpSender::new(&c);
    s.add_data(0, u64::MAX);
    assert_eq!(seqs(&drain(&mut s, 0)), vec![0], "the setup segment is not delayed");
    s
}

/// An ACK of `n` echoing send time `ts`, seen after `hops` hops at `now`.
fn ack_at(s: &mut TcpSender, now: Time, n: u64, ts: Time, hops: u32) -> Vec<u64> {
    s.on_segment_via(now, &TcpSegment::new_ack(n, ts), hops);
    seqs(&drain(s, now))
}

#[test]
fn sender_releases_the_window_one_interval_apart() {
    let mut s = paced_sender(paper());
    // The setup segment's ACK (RTT 40 ms over 4 hops) sets the rate;
    // the initial window of 2 allows packets 1 and 2.
    assert_eq!(ack_at(&mut s, 40 * MS, 0, 0, 4), vec![1], "one now, the next one interval later");
    let iv = s.pacing().unwrap().estimator().interval().unwrap();
    assert_eq!(s.pacing().unwrap().queued(), 1);
    assert_eq!(s.next_timer(), Some(40 * MS + iv), "the pacing deadline comes before the RTO");
    assert!(s.poll_transmit(40 * MS + iv - 1).is_none());
    assert_eq!(seqs(&drain(&mut s, 40 * MS + iv)), vec![2]);
    // ACK of 1 (slow start: cwnd 3) allows 3 and 4: 3 leaves at once
    // if an interval has passed since 2, and 4 one interval after 3.
    let t = 40 * MS + 2 * iv;
    assert_eq!(ack_at(&mut s, t, 1, 40 * MS, 4), vec![3]);
    let iv2 = s.pacing().unwrap().estimator().interval().unwrap();
    assert_eq!(s.next_timer(), Some(t + iv2));
    assert_eq!(seqs(&drain(&mut s, t + iv2)), vec![4]);
    let st = s.stats(t + iv2).pacing.unwrap();
    assert_eq!(st.paced_packets, 5, "the setup segment and 1..=4");
    assert_eq!(st.rate_samples, 2);
    assert!(st.mean_pacing_delay_s > 0.0);
}

#[test]
fn rtt_wired_is_subtracted_and_unknown_hops_give_no_sample() {
    let mut s = paced_sender(paper());
    // 120 ms end to end, 80 ms of it wired: the estimator sees 40 ms.
    let a = TcpSegment { rtt_wired_ms: Some(80), ..TcpSegment::new_ack(0, 0) };
    s.on_segment_via(120 * MS, &a, 4);
    let mut e = RateEstimator::new(&paper(), 1460);
    e.on_rtt(0.040, 4);
    assert!(close(s.pacing().unwrap().estimator().fhd_s().unwrap(), e.fhd_s().unwrap()));
    // Without the hop count (plain on_segment) nothing is sampled.
    let mut s2 = paced_sender(paper());
    s2.on_segment(40 * MS, &ack(0));
    assert_eq!(s2.pacing().unwrap().estimator().samples(), 0);
}

/// A paced sender whose ACKs 1..=10 came back in order, one per packet
/// sent; returns it and the time.
fn grown(ap: TcpApConfig) -> (TcpSender, Time) {
    let mut s = paced_sender(ap);
    let mut now = 40 * MS;
    ack_at(&mut s, now, 0, 0, 4);
    for next_ack in 1..=10 {
        now = s.next_timer().unwrap().max(now);
        drain(&mut s, now);
        now += MS;
        ack_at(&mut s, now, next_ack, now - 40 * MS, 4);
    }
    assert!(s.pacing().unwrap().queued() > 0, "packets wait for the pacer");
    (s, now)
}

#[test]
fn fast_retransmission_bypasses_the_pacer() {
    let (mut s, now) = grown(paper());
    // Packet 11 is lost: three duplicate ACKs of 10. The first two
    // release limited-transmit packets into the pacing queue.
    ack_at(&mut s, now, 10, now - 40 * MS, 4);
    ack_at(&mut s, now, 10, now - 40 * MS, 4);
    let queued = s.pacing().unwrap().queued();
    let sent = ack_at(&mut s, now, 10, now - 40 * MS, 4);
    assert_eq!(sent, vec![11], "the retransmission leaves at once, the queue keeps waiting");
    assert_eq!(s.stats(now).fast_retransmits, 1);
    assert_eq!(s.pacing().unwrap().queued(), queued);
    assert_eq!(s.stats(now).pacing.unwrap().bypassed_packets, 1);
    // The RTO backs off as usual.
    let rto = s.rto();
    let d = s.next_timer().unwrap();
    let mut t = now;
    while s.stats(t).timeouts == 0 {
        t = s.next_timer().unwrap();
        s.on_timer(t);
        drain(&mut s, t);
    }
    assert!(t >= d);
    assert_eq!(s.rto(), 2 * rto);
}

#[test]
fn ns2_code_discards_the_queue_on_fast_retransmit_and_never_backs_off() {
    let (mut s, now) = grown(TcpApConfig::ns2(11e6));
    ack_at(&mut s, now, 10, now - 40 * MS, 4);
    ack_at(&mut s, now, 10, now - 40 * MS, 4);
    let queued = s.pacing().unwrap().queued();
    let next_new = s.next_seq();
    assert_eq!(ack_at(&mut s, now, 10, now - 40 * MS, 4), vec![11]);
    let st = s.stats(now).pacing.unwrap();
    assert_eq!(st.discarded_packets, queued as u64);
    assert_eq!(s.pacing().unwrap().queued(), 0);
    assert!(s.next_seq() >= next_new, "the discarded packets count as sent");
    // Nothing acknowledges anything now: the timeout re-arms the timer
    // without doubling it.
    let rto = s.rto();
    let mut t = now;
    while s.stats(t).timeouts == 0 {
        t = s.next_timer().unwrap();
        s.on_timer(t);
        drain(&mut s, t);
    }
    assert_eq!(s.rto(), rto, "no backoff in the ns-2 code");
}

/// 11 Mb/s, 1460 B payloads: s_data/b = 1500·8/11e6, s_ACK/b = 40·8/11e6.
fn paper() -> TcpApConfig {
    TcpApConfig::paper(11e6)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-9)
}
