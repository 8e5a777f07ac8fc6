//! The sender running Reno (`congestion/reno.rs`).

use super::super::config::TcpConfig;
use super::super::config::Variant;
use super::testutil::{self, *};

/// cwnd 8 with 1..=6 acked and 7..=14 in flight.
fn at_window_8(variant: Variant) -> super::TcpSender {
    testutil::at_window_8(&TcpConfig { variant, ..TcpConfig::default() })
}

#[test]
fn reno_exits_recovery_on_partial_ack() {
    let mut s = at_window_8(Variant::Reno);
    // 7 and 9 lost; dupacks of 6 from 8, 10, 11.
    let t = 200 * MS;
    // Limited transmit: each of the first two dupacks releases a packet.
    assert_eq!(ack_and_send(&mut s, t, ack(6)), vec![15]);
    assert_eq!(ack_and_send(&mut s, t, ack(6)), vec![16]);
    assert_eq!(ack_and_send(&mut s, t, ack(6)), vec![7]);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(s.cwnd(), 7.0, "4 + 3 inflation");
    // Partial ACK (7 arrived, 9 still missing): Reno leaves recovery,
    // cwnd = w/2 = 4 plus one CA increment, no retransmission of 9.
    let sent = ack_and_send(&mut s, t + 10 * MS, ack(8));
    assert!(!sent.contains(&9), "{sent:?}");
    assert_eq!(s.cwnd(), 4.25);
    assert_eq!(s.stats(t).fast_retransmits, 1);
    // Three more dupacks for 9 below recover: no second fast retransmit.
    for _ in 0..3 {
        ack_and_send(&mut s, t + 20 * MS, ack(8));
    }
    assert_eq!(s.stats(t).fast_retransmits, 1);
    assert_eq!(s.ssthresh(), 4.0);
}
