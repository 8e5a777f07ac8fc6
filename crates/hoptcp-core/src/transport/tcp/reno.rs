//! Reno (ns-2 `Agent/TCP/Reno`), and the duplicate-ACK machinery it shares
//! with NewReno.
//!
//! Fast retransmit on the `dupack_threshold`-th duplicate ACK halves the
//! window (ssthresh = floor(w/2), cwnd = w/2 with w = min(cwnd, max_window)),
//! retransmits the first unacknowledged packet and inflates the window by
//! the threshold, then by one per further duplicate ACK (`dupwnd`). Reno
//! leaves fast recovery on the first ACK of new data, partial or not.
//! A new reduction is allowed only once the ACKs pass `recover` (ns-2
//! `bugFix_`), so one window of losses costs one halving (or a timeout).

use super::sender::{how, Core, CwndAction};
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl Reno {
    pub(super) fn on_ack(&mut self, core: &mut Core, now: Time, ack: i64, ece: bool) {
        if core.last_action == CwndAction::Dupack {
            core.last_action = CwndAction::Exited;
        }
        core.dupwnd = 0;
        core.recv_newack_helper(now, ack, ece);
        core.delay_growth(ack);
    }

    pub(super) fn on_dupack(&mut self, core: &mut Core, now: Time) {
        // ns-2 Reno may fast-retransmit again while still in recovery.
        let allow = core.last_action == CwndAction::Dupack;
        on_dupack_common(core, now, allow);
    }

    pub(super) fn on_timeout(&mut self, core: &mut Core, now: Time) {
        timeout_common(core, now);
    }

    /// After an ACK, ns-2 Reno sends unless it saw the first or second
    /// duplicate ACK.
    pub(super) fn send_budget(core: &Core) -> Option<u32> {
        if core.dupacks == 0 || core.dupacks >= core.numdupacks {
            None
        } else {
            Some(0)
        }
    }
}

/// Count a duplicate ACK: fast retransmit at the threshold, inflation past
/// it, limited transmit before it.
pub(super) fn on_dupack_common(core: &mut Core, now: Time, allow_fast_retransmit: bool) {
    core.dupacks += 1;
    if core.dupacks == core.numdupacks {
        dupack_action(core, now, allow_fast_retransmit);
    } else if core.dupacks > core.numdupacks && core.last_action == CwndAction::Dupack {
        core.dupwnd += 1;
    } else if core.dupacks < core.numdupacks && core.limited_transmit {
        core.send_one();
    }
}

/// The threshold was reached (ns-2 `dupack_action()`).
fn dupack_action(core: &mut Core, now: Time, allow_fast_retransmit: bool) {
    let recovered = core.highest_ack > core.recover;
    // highest_ack == 0: the first data packet was lost (ns-2 bugfix_ss_).
    if recovered || allow_fast_retransmit || core.highest_ack == 0 {
        fast_retransmit(core, now);
        return;
    }
    if core.ecn && core.last_action == CwndAction::Ecn {
        // ECN already halved this window: retransmit without a second cut.
        core.last_action = CwndAction::Dupack;
        core.reset_rtx_timer(now, true, false);
        core.queue_dupack_output(core.highest_ack + 1);
        core.dupwnd = core.numdupacks;
    }
    // Otherwise the losses belong to a window already reduced: wait.
}

fn fast_retransmit(core: &mut Core, now: Time) {
    core.recover = core.maxseq;
    core.last_action = CwndAction::Dupack;
    core.slowdown(how::SSTHRESH_HALF | how::CWND_HALF);
    core.reset_rtx_timer(now, true, false);
    core.queue_dupack_output(core.highest_ack + 1);
    core.dupwnd = core.numdupacks;
    core.fast_retransmits += 1;
}

/// Reno-family timeout: forget fast recovery, then the common response.
pub(super) fn timeout_common(core: &mut Core, now: Time) {
    core.dupwnd = 0;
    core.dupacks = 0;
    core.recover = core.maxseq;
    core.base_timeout(now);
}

#[cfg(test)]
mod tests {
    use super::super::config::Variant;
    use super::super::sender::testutil::{self, *};
    use super::super::TcpConfig;

    /// cwnd 8 with 1..=6 acked and 7..=14 in flight.
    fn at_window_8(variant: Variant) -> super::super::TcpSender {
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
}
