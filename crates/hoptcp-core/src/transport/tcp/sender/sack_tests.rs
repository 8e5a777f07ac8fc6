//! The sender with SACK (`sack/`): RFC 6675's recovery and ns-2.35 Sack1's
//! on hand-made ACK streams carrying SACK blocks.

use super::super::config::{TcpConfig, Variant};
use super::super::sack::SackProfile;
use super::testutil::{self, *};
use super::TcpSender;
use crate::engine::Time;
use crate::wire::TcpSegment;

/// A cumulative ACK of `n` with SACK blocks `[l, r)`.
fn sack(n: u64, blocks: &[(u64, u64)]) -> TcpSegment {
    let mut a = ack(n);
    for &(l, r) in blocks {
        a.sack.push(n, l, r);
    }
    a
}

fn sack_cfg(p: SackProfile) -> TcpConfig {
    TcpConfig { sack: Some(p), limited_transmit: false, ..TcpConfig::default() }
}

/// cwnd 8 with 1..=6 acked and 7..=14 in flight.
fn at_window_8(p: SackProfile) -> TcpSender {
    testutil::at_window_8(&sack_cfg(p))
}

/// 7, 9 and 11 lost of 7..=14: the ACKs for 8, 10, 12, 13, 14.
fn three_holes() -> [TcpSegment; 5] {
    [
        sack(6, &[(8, 9)]),
        sack(6, &[(10, 11), (8, 9)]),
        sack(6, &[(12, 13), (10, 11), (8, 9)]),
        sack(6, &[(12, 14), (10, 11), (8, 9)]),
        sack(6, &[(12, 15), (10, 11), (8, 9)]),
    ]
}

#[test]
fn rfc6675_three_holes_in_one_window_pipe_and_next_seg() {
    let mut s = at_window_8(SackProfile::Rfc6675);
    let t: Time = 200 * MS;
    let [a8, a10, a12, a13, a14] = three_holes();
    assert!(ack_and_send(&mut s, t, a8).is_empty());
    assert!(ack_and_send(&mut s, t, a10).is_empty());
    // Third duplicate ACK: ssthresh = cwnd = 4, retransmit 7. SetPipe: 7
    // lost but retransmitted (1), 9 and 11 not yet lost (1 each), 13 and
    // 14 (1 each): 5, above cwnd.
    assert_eq!(ack_and_send(&mut s, t, a12), vec![7]);
    assert_eq!((s.cwnd(), s.ssthresh()), (4.0, 4.0));
    assert_eq!(s.stats(t).fast_retransmits, 1);
    // 13 SACKed: 9 is lost now (10, 12, 13 above), pipe 3: rule 1 sends 9.
    assert_eq!(ack_and_send(&mut s, t, a13), vec![9]);
    // 14 SACKed: 11 lost, pipe 2: rule 1 sends 11, then rule 2 new data 15.
    assert_eq!(ack_and_send(&mut s, t, a14), vec![11, 15]);
    // The retransmitted 7 arrives: ACK 8 is partial; pipe 3 (9, 11, 15):
    // one more, new data.
    let t1 = t + 50 * MS;
    assert_eq!(ack_and_send(&mut s, t1, sack(8, &[(10, 11), (12, 15)])), vec![16]);
    assert_eq!(s.cwnd(), 4.0, "no growth during recovery");
    assert_eq!(ack_and_send(&mut s, t1, sack(10, &[(12, 15)])), vec![17]);
    // ACK 15 covers RecoveryPoint 14: recovery ends and the ACK grows cwnd
    // as NewReno's would (4 + 1/4).
    ack_and_send(&mut s, t1 + 10 * MS, ack(15));
    assert_eq!(s.cwnd(), 4.25);
    let st = s.stats(t1);
    assert_eq!((st.retransmissions, st.timeouts), (3, 0));
    let sk = st.sack.expect("sack stats");
    assert_eq!((sk.recoveries, sk.recoveries_completed, sk.rescue_retransmissions), (1, 1, 0));
}

#[test]
fn ns2_sack1_three_holes_counts_pipe_and_retransmits_each_hole_once() {
    let mut s = at_window_8(SackProfile::Ns2Sack1);
    let t: Time = 200 * MS;
    let [a8, a10, a12, a13, a14] = three_holes();
    ack_and_send(&mut s, t, a8);
    ack_and_send(&mut s, t, a10);
    // pipe = maxseq - highest_ack - 3 = 5; only the fast retransmission.
    assert_eq!(ack_and_send(&mut s, t, a12), vec![7]);
    assert_eq!((s.cwnd(), s.ssthresh()), (4.0, 4.0));
    // One ACK: pipe 4, not below cwnd 4.
    assert!(ack_and_send(&mut s, t, a13).is_empty());
    // pipe 3: the first hole above 7 with a SACKed packet above it is 9.
    assert_eq!(ack_and_send(&mut s, t, a14), vec![9]);
    // Partial ACK 8: pipe falls by two (3 - 2 = 2 after 9 went): 11, then
    // new data 15.
    let t1 = t + 50 * MS;
    assert_eq!(ack_and_send(&mut s, t1, sack(8, &[(10, 11), (12, 15)])), vec![11, 15]);
    // ACK 15 ends recovery; cwnd stays at 4 (no increment on that ACK).
    ack_and_send(&mut s, t1 + 10 * MS, sack(10, &[(12, 15)]));
    ack_and_send(&mut s, t1 + 20 * MS, ack(15));
    assert_eq!(s.cwnd(), 4.0);
    let st = s.stats(t1);
    assert_eq!(st.retransmissions, 3);
    assert_eq!(st.sack.unwrap().recoveries_completed, 1);
}

#[test]
fn duplicate_acks_without_new_sack_information_do_not_count() {
    for p in [SackProfile::Rfc6675, SackProfile::Ns2Sack1] {
        let mut s = at_window_8(p);
        let t: Time = 200 * MS;
        for _ in 0..4 {
            ack_and_send(&mut s, t, sack(6, &[(8, 9)]));
        }
        assert_eq!(s.stats(t).fast_retransmits, 0, "{p:?}");
        ack_and_send(&mut s, t, sack(6, &[(10, 11), (8, 9)]));
        assert_eq!(ack_and_send(&mut s, t, sack(6, &[(12, 13), (10, 11), (8, 9)])), vec![7], "{p:?}");
    }
}

#[test]
fn rfc6675_enters_on_is_lost_before_three_duplicate_acks() {
    // One ACK SACKs three packets above the hole (ACKs lost in between):
    // IsLost(HighACK + 1) starts recovery at once. ns-2's Sack1 counts
    // duplicate ACKs only.
    let mut s = at_window_8(SackProfile::Rfc6675);
    assert_eq!(ack_and_send(&mut s, 200 * MS, sack(6, &[(8, 11)])), vec![7]);
    let mut s = at_window_8(SackProfile::Ns2Sack1);
    assert!(ack_and_send(&mut s, 200 * MS, sack(6, &[(8, 11)])).is_empty());
    assert_eq!(s.stats(200 * MS).fast_retransmits, 0);
}

#[test]
fn rfc6675_rescue_retransmission_of_the_tail() {
    // 14 packets only: 7 and the last one (14) lost. Nothing SACKed above
    // 14, so neither rule 1 nor rule 3 retransmits it.
    let c = TcpConfig { initial_ssthresh: 1000, ..sack_cfg(SackProfile::Rfc6675) };
    let mut s = TcpSender::new(&c);
    s.add_data(0, 14);
    drain(&mut s, 0);
    ack_and_send(&mut s, 100 * MS, ack(0));
    for p in 1..=6 {
        ack_and_send(&mut s, 100 * MS + p * MS, ack(p));
    }
    assert_eq!(s.max_sent(), Some(14));
    let t = 200 * MS;
    ack_and_send(&mut s, t, sack(6, &[(8, 9)]));
    ack_and_send(&mut s, t, sack(6, &[(8, 10)]));
    assert_eq!(ack_and_send(&mut s, t, sack(6, &[(8, 11)])), vec![7]);
    // 11..=13 SACKed: pipe = 7 (retransmitted) + 14 (not lost) = 2 < 4,
    // but RescueRxt = 7 and HighACK = 6: no rescue yet.
    assert!(ack_and_send(&mut s, t, sack(6, &[(8, 12)])).is_empty());
    assert!(ack_and_send(&mut s, t, sack(6, &[(8, 14)])).is_empty());
    // The retransmitted 7 arrives: HighACK 13 > RescueRxt: rule 4 sends
    // the highest unSACKed packet, once.
    assert_eq!(ack_and_send(&mut s, t + 50 * MS, ack(13)), vec![14]);
    assert_eq!(s.stats(t).sack.unwrap().rescue_retransmissions, 1);
    assert_eq!(s.stats(t).timeouts, 0);
    ack_and_send(&mut s, t + 60 * MS, ack(14));
    assert!(s.all_acked());
}

#[test]
fn rto_clears_the_scoreboard_and_holds_off_a_new_recovery() {
    for p in [SackProfile::Rfc6675, SackProfile::Ns2Sack1] {
        let mut s = at_window_8(p);
        let t: Time = 200 * MS;
        let [a8, a10, a12, a13, _] = three_holes();
        for a in [a8, a10, a12, a13] {
            ack_and_send(&mut s, t, a);
        }
        let d = s.next_timer().unwrap();
        s.on_timer(d);
        assert_eq!(s.stats(d).timeouts, 1, "{p:?}");
        assert_eq!(s.cwnd(), 1.0);
        // Go-back-N from 7 (the SACK information was expunged).
        assert_eq!(seqs(&drain(&mut s, d)), vec![7], "{p:?}");
        // The same blocks again, and more: no new recovery below the
        // recovery point the timeout set.
        for a in three_holes() {
            ack_and_send(&mut s, d + MS, a);
        }
        assert_eq!(s.stats(d).fast_retransmits, 1, "{p:?}");
        let sk = s.stats(d).sack.unwrap();
        assert_eq!((sk.recoveries, sk.recoveries_completed), (1, 0), "{p:?}");
        // ACK 8 (7 arrived), cwnd 2: RFC 6675's go-back-N skips the
        // packets the ACKs reported SACKed after the timeout (10); ns-2
        // resends them.
        let sent = ack_and_send(&mut s, d + 50 * MS, sack(8, &[(10, 11), (12, 15)]));
        let sent2 = ack_and_send(&mut s, d + 60 * MS, sack(10, &[(12, 15)]));
        match p {
            SackProfile::Rfc6675 => assert_eq!((sent, sent2), (vec![9], vec![11])),
            SackProfile::Ns2Sack1 => assert_eq!((sent, sent2), (vec![9, 10], vec![11, 12])),
        }
    }
}

#[test]
fn cubic_with_sack_cuts_by_beta() {
    let c = TcpConfig { variant: Variant::Cubic, ..sack_cfg(SackProfile::Rfc6675) };
    let mut s = testutil::at_window_8(&c);
    let t: Time = 200 * MS;
    for a in &three_holes()[..3] {
        ack_and_send(&mut s, t, *a);
    }
    assert!((s.ssthresh() - 5.6).abs() < 1e-9, "{}", s.ssthresh());
    assert!((s.cwnd() - 5.6).abs() < 1e-9);
}
