//! NewReno (ns-2 `Agent/TCP/Newreno`, RFC 6582 "careful" variant): like
//! Reno, but an ACK that advances without reaching `recover` (a partial
//! ACK) keeps the sender in fast recovery, retransmits the next missing
//! packet at once, and deflates the window by the amount acknowledged
//! minus one (`partial_window_deflation_ 1`). Only the first partial ACK
//! of an episode restarts the retransmission timer (`newreno_changes1_ 1`,
//! the "impatient" choice, so a long burst of losses falls back on a
//! timeout). The ACK reaching `recover` ends recovery with cwnd = w/2
//! (ns-2 keeps the halved cwnd; that ACK then adds its CA increment).
//! While in recovery each ACK releases at most two new packets.

use super::reno::{on_dupack_common, timeout_common};
use super::sender::{Core, CwndAction};
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// A partial ACK was already seen in this recovery episode.
    firstpartial: bool,
}

impl NewReno {
    pub(super) fn on_ack(&mut self, core: &mut Core, now: Time, ack: i64, ece: bool) {
        if ack >= core.recover || core.last_action != CwndAction::Dupack {
            // Full ACK, or not in fast recovery.
            if core.dupwnd > 0 {
                core.dupwnd = 0;
                if core.last_action == CwndAction::Dupack {
                    core.last_action = CwndAction::Exited;
                }
            }
            self.firstpartial = false;
            core.recv_newack_helper(now, ack, ece);
            core.delay_growth(ack);
        } else {
            self.partial_ack(core, now, ack);
        }
    }

    fn partial_ack(&mut self, core: &mut Core, now: Time, ack: i64) {
        if !self.firstpartial {
            self.firstpartial = true;
            core.arm_rtx(now);
        }
        // Deflate by the packets acknowledged, then add one back for the
        // retransmission about to leave.
        let deflate = (ack - core.highest_ack) as u32;
        if core.dupwnd > deflate {
            core.dupwnd -= deflate - 1;
        } else {
            core.cwnd -= (deflate - core.dupwnd) as f64;
            // Keep dupwnd > 0: it flags fast recovery.
            core.dupwnd = 1;
        }
        if core.cwnd < 1.0 {
            core.cwnd = 1.0;
        }
        core.highest_ack = ack;
        if core.t_seqno < ack + 1 {
            core.t_seqno = ack + 1;
        }
        // The timed segment is covered: end the backoff but take no sample
        // (ns-2 partialnewack()); dupacks keeps counting.
        if core.rto.take_timed(ack) {
            core.rto.reset_backoff();
        }
        core.queue_output(ack + 1);
    }

    pub(super) fn on_dupack(&mut self, core: &mut Core, now: Time) {
        // NewReno never re-enters fast retransmit below `recover`.
        on_dupack_common(core, now, false);
    }

    pub(super) fn on_timeout(&mut self, core: &mut Core, now: Time) {
        timeout_common(core, now);
    }

    /// ns-2 NewReno: after a new ACK send freely; during fast recovery at
    /// most two packets per ACK (`send_much(0, 0, 2)`); nothing on the first
    /// and second duplicate ACK.
    pub(super) fn send_budget(core: &Core) -> Option<u32> {
        if core.dupacks == 0 {
            None
        } else if core.dupacks >= core.numdupacks {
            Some(2)
        } else {
            Some(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::Variant;
    use super::super::sender::testutil::{self, *};
    use super::super::{TcpConfig, TcpSender};
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
}

#[cfg(test)]
mod ecn_tests {
    use super::super::sender::testutil::*;
    use super::super::{TcpConfig, TcpSender};
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
        let mut s = ecn_at_window_8();
        let t: Time = 200 * MS;
        s.on_segment(t, &ack_ece(6));
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
        let mut s = ecn_at_window_8();
        let t: Time = 200 * MS;
        s.on_segment(t, &ack_ece(7));
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
}
