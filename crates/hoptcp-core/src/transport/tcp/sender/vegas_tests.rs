//! The sender running Vegas (`congestion/vegas.rs`).

use super::super::config::TcpConfig;
use super::super::config::Variant;
use super::testutil::*;
use super::TcpSender;
use crate::engine::Time;

fn vegas(initial_window: u32) -> TcpConfig {
    TcpConfig { variant: Variant::Vegas, initial_window, ..TcpConfig::default() }
}

/// Setup segment at 0, acked at 100 ms; packet 1 acked at 200 ms.
fn started(initial_window: u32) -> (TcpSender, Vec<u64>) {
    let mut s = TcpSender::new(&vegas(initial_window));
    s.add_data(0, u64::MAX);
    assert_eq!(seqs(&drain(&mut s, 0)), vec![0]);
    // ns-2 Vegas: the setup segment's ACK leaves cwnd at 1.
    assert_eq!(ack_and_send(&mut s, 100 * MS, ack(0)), vec![1]);
    assert_eq!(s.cwnd(), 1.0);
    let sent = ack_and_send(&mut s, 200 * MS, ack(1));
    (s, sent)
}

#[test]
fn initial_window_on_first_data_ack_then_every_other_rtt() {
    // First data ACK: cwnd = 2, and this RTT grows (+1).
    let (mut s, sent) = started(2);
    assert_eq!(s.cwnd(), 3.0);
    assert_eq!(sent, vec![2, 3, 4]);
    // Next RTT (ACKs of 2..4 at 300 ms) holds: one packet per ACK.
    let t: Time = 300 * MS;
    assert_eq!(ack_and_send(&mut s, t, ack(2)), vec![5]);
    assert_eq!(ack_and_send(&mut s, t, ack(3)), vec![6]);
    assert_eq!(ack_and_send(&mut s, t, ack(4)), vec![7]);
    assert_eq!(s.cwnd(), 3.0);
    // The one after grows again: two packets per ACK.
    let t = 400 * MS;
    assert_eq!(ack_and_send(&mut s, t, ack(5)), vec![8, 9]);
    assert_eq!(s.cwnd(), 4.0);
}

#[test]
fn third_dupack_retransmits_and_cuts_to_three_quarters() {
    // cwnd 8 on the first data ACK; no +1, because cwnd already exceeds
    // what is outstanding by more than two.
    let (mut s, sent) = started(8);
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(sent, (2..=9).collect::<Vec<_>>());
    let rto = s.rto();
    // 2 lost. Duplicates arrive within the fine-grained timeout.
    let t: Time = 210 * MS;
    assert!(ack_and_send(&mut s, t, ack(1)).is_empty());
    assert!(ack_and_send(&mut s, t, ack(1)).is_empty());
    let sent = ack_and_send(&mut s, t, ack(1));
    // win 8 -> 8 - 8/4 = 6, inflated by the 3 duplicates: 9.
    assert_eq!(s.cwnd(), 9.0);
    assert_eq!(sent, vec![2, 10]);
    assert_eq!(s.stats(t).fast_retransmits, 1);
    assert_eq!(s.ssthresh(), 20.0, "Vegas leaves ssthresh alone here");
    // The coarse timer is backed off on Vegas's fast retransmit.
    assert_eq!(s.rto(), 2 * rto);
    assert_eq!(s.next_timer(), Some(t + 2 * rto));
    // Each further duplicate inflates by one.
    assert_eq!(ack_and_send(&mut s, t, ack(1)), vec![11]);
    assert_eq!(s.cwnd(), 10.0);
    // The new ACK deflates to the reduced window and ends slow start.
    ack_and_send(&mut s, 300 * MS, ack(10));
    assert!(s.cwnd() >= 6.0 && s.cwnd() < 6.2, "{}", s.cwnd());
    assert_eq!(s.ssthresh(), 2.0);
}

#[test]
fn fine_grained_expiry_retransmits_on_first_dupack() {
    let (mut s, _) = started(8);
    // Fine-grained timeout ~0.146 s after two 100 ms samples; packet 2
    // left at 200 ms. A first duplicate at 360 ms finds it expired, well
    // before the coarse RTO (200 ms + 250 ms).
    assert_eq!(s.next_timer(), Some(450 * MS));
    let t: Time = 360 * MS;
    let sent = ack_and_send(&mut s, t, ack(1));
    assert_eq!(sent[0], 2);
    assert_eq!(s.stats(t).fast_retransmits, 1);
    assert_eq!(s.cwnd(), 6.0 + 1.0);
    // Not expired: a first duplicate shortly after sending does nothing.
    let (mut s, _) = started(8);
    assert!(ack_and_send(&mut s, 220 * MS, ack(1)).is_empty());
    assert_eq!(s.stats(220 * MS).fast_retransmits, 0);
}

#[test]
fn timeout_restarts_from_two() {
    let (mut s, _) = started(8);
    let d = s.next_timer().unwrap();
    s.on_timer(d);
    assert_eq!(s.cwnd(), 2.0);
    assert_eq!(s.ssthresh(), 4.0, "floor(min(8, 32) / 2)");
    assert_eq!(s.stats(d).timeouts, 1);
    // Go back to the first unacknowledged packet, two at a time.
    assert_eq!(seqs(&drain(&mut s, d)), vec![2, 3]);
}

#[test]
fn after_timeout_inflation_deflates_to_zero_as_in_ns2() {
    // ns-2 quirk kept on purpose: duplicates past the threshold after a
    // timeout inflate cwnd without a retransmission, and the next new ACK
    // "deflates" to the last reduced window, which a timeout set to 0.
    let (mut s, _) = started(8);
    let d = s.next_timer().unwrap();
    s.on_timer(d);
    drain(&mut s, d);
    for _ in 0..4 {
        ack_and_send(&mut s, d + MS, ack(1));
    }
    assert_eq!(s.cwnd(), 3.0, "inflated from 2 by the 4th duplicate");
    assert_eq!(s.stats(d).fast_retransmits, 0);
    let sent = ack_and_send(&mut s, d + 2 * MS, ack(3));
    assert!(s.cwnd() < 1.0, "{}", s.cwnd());
    assert!(sent.is_empty());
    // The stall ends with the next timeout.
    let d2 = s.next_timer().unwrap();
    s.on_timer(d2);
    assert_eq!(s.cwnd(), 2.0);
    assert_eq!(seqs(&drain(&mut s, d2)), vec![4, 5]);
}
