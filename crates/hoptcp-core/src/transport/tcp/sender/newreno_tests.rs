//! The sender running NewReno (`congestion/newreno.rs`).

use super::super::config::TcpConfig;
use super::super::config::Variant;
use super::testutil::{self, *};
use super::TcpSender;
use crate::engine::Time;

/// cwnd 8 with 1..=6 acked and 7..=14 in flight; no limited transmit so
/// the arithmetic is easy to follow.
fn at_window_8() -> TcpSender {
    testutil::at_window_8(&TcpConfig { limited_transmit: false, ..TcpConfig::default() })
}

#[test]
fn fast_retransmit_on_third_dupack_not_second() {
    let mut s = at_window_8();
    let t: Time = 200 * MS;
    assert!(ack_and_send(&mut s, t, ack(6)).is_empty());
    assert!(ack_and_send(&mut s, t, ack(6)).is_empty());
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(s.stats(t).fast_retransmits, 0);
    let sent = ack_and_send(&mut s, t, ack(6));
    assert_eq!(sent, vec![7]);
    assert_eq!(s.stats(t).fast_retransmits, 1);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(s.cwnd(), 7.0, "ssthresh + 3");
    // The timer was restarted, without backoff.
    assert_eq!(s.next_timer(), Some(t + s.rto()));
}

#[test]
fn limited_transmit_sends_on_first_two_dupacks() {
    let c = TcpConfig { initial_ssthresh: 1000, ..TcpConfig::default() };
    let mut s = established(&c, 100 * MS);
    for p in 1..=6 {
        ack_and_send(&mut s, 100 * MS + p * MS, ack(p));
    }
    let t = 200 * MS;
    assert_eq!(ack_and_send(&mut s, t, ack(6)), vec![15]);
    assert_eq!(ack_and_send(&mut s, t, ack(6)), vec![16]);
    assert_eq!(ack_and_send(&mut s, t, ack(6)), vec![7]);
    assert_eq!(s.cwnd(), 8.0 / 2.0 + 3.0);
}

#[test]
fn recovery_with_partial_acks() {
    let mut s = at_window_8();
    let t: Time = 200 * MS;
    // 7, 9 and 11 lost; 8, 10, 12, 13, 14 arrive: five dupacks of 6.
    for _ in 0..3 {
        ack_and_send(&mut s, t, ack(6));
    }
    assert_eq!(s.cwnd(), 7.0);
    // Two more dupacks inflate to 9: window 6 + 9 = 15 allows 15.
    assert_eq!(ack_and_send(&mut s, t, ack(6)), Vec::<u64>::new());
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(ack_and_send(&mut s, t, ack(6)), vec![15]);
    assert_eq!(s.cwnd(), 9.0);
    let deadline = s.next_timer().unwrap();

    // Retransmitted 7 arrives: ACK 8 is partial (recover = 14).
    // Retransmit 9 at once; deflate by 2 then add 1: 9 - 2 + 1 = 8.
    let t1 = t + 50 * MS;
    let sent = ack_and_send(&mut s, t1, ack(8));
    assert_eq!(sent[0], 9, "hole retransmitted first: {sent:?}");
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(s.ssthresh(), 4.0);
    // Window 8 + 8 = 16 allows 16 (15 already out).
    assert_eq!(sent, vec![9, 16]);
    assert!(s.next_timer().unwrap() > deadline, "first partial ACK restarts the timer");
    let d1 = s.next_timer().unwrap();

    // Retransmitted 9 arrives: ACK 10, partial; retransmit 11.
    let t2 = t1 + 50 * MS;
    let sent = ack_and_send(&mut s, t2, ack(10));
    assert_eq!(sent[0], 11);
    assert_eq!(s.cwnd(), 7.0);
    assert_eq!(s.next_timer(), Some(d1), "later partial ACKs do not restart it");
    assert_eq!(s.stats(t2).fast_retransmits, 1);

    // ACK 14 (>= recover) ends recovery: cwnd = w/2 = 4, plus the CA
    // increment of that ACK.
    let t3 = t2 + 50 * MS;
    ack_and_send(&mut s, t3, ack(14));
    assert_eq!(s.cwnd(), 4.25);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(s.stats(t3).retransmissions, 3);
}

#[test]
fn at_most_two_new_packets_per_ack_in_recovery() {
    // With max_window 8 the inflated window is clamped, so a partial
    // ACK that acknowledges six packets opens the window by four.
    let c = TcpConfig { initial_ssthresh: 1000, limited_transmit: false, max_window: 8, ..TcpConfig::default() };
    let mut s = established(&c, 100 * MS);
    for p in 1..=6 {
        ack_and_send(&mut s, 100 * MS + p * MS, ack(p));
    }
    assert_eq!(s.max_sent(), Some(14));
    let t: Time = 200 * MS;
    let mut sent = Vec::new();
    for _ in 0..7 {
        sent.extend(ack_and_send(&mut s, t, ack(6)));
    }
    assert_eq!(sent, vec![7]);
    assert_eq!(s.cwnd(), 11.0);
    assert_eq!(s.effective_window(), 8);
    // Partial ACK 12: dupwnd 7 - (6 - 1) = 2, cwnd 4 + 2 = 6, so
    // 15..=18 fit, but only two leave with this ACK.
    let t1 = t + 10 * MS;
    assert_eq!(ack_and_send(&mut s, t1, ack(12)), vec![13, 15, 16]);
    assert_eq!(s.cwnd(), 6.0);
    // Another event (the application calling) lifts the per-ACK limit.
    s.add_data(t1, 0);
    assert_eq!(seqs(&drain(&mut s, t1)), vec![17, 18]);
}

#[test]
fn dupacks_below_recover_after_timeout_do_not_halve_again() {
    let mut s = at_window_8();
    let d = s.next_timer().unwrap();
    s.on_timer(d);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(seqs(&drain(&mut s, d)), vec![7]);
    // Old duplicates of 6 arrive: no fast retransmit, no new cut.
    for _ in 0..4 {
        ack_and_send(&mut s, d + MS, ack(6));
    }
    assert_eq!(s.stats(d).fast_retransmits, 0);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(s.cwnd(), 1.0);
}

#[test]
fn fast_retransmit_when_first_data_packet_lost() {
    let c = TcpConfig { limited_transmit: false, ..cfg(Variant::NewReno) };
    let mut s = established(&c, 100 * MS);
    // Packet 1 lost: duplicate ACKs of the setup segment (ACK 0) still
    // trigger fast retransmit although recover is 0 (ns-2 bugfix_ss_).
    for _ in 0..3 {
        ack_and_send(&mut s, 150 * MS, ack(0));
    }
    assert_eq!(s.stats(150 * MS).fast_retransmits, 1);
}
