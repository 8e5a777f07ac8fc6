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

use super::super::state::{how, CwndAction, SenderState};
use super::{Ack, Controller};
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl Controller for Reno {
    fn on_ack(&mut self, core: &mut SenderState, a: &Ack) {
        let (now, ack, ece) = (a.now, a.ack, a.ece);
        if core.last_action == CwndAction::Dupack {
            core.last_action = CwndAction::Exited;
        }
        core.dupwnd = 0;
        core.recv_newack_helper(now, ack, ece);
        core.delay_growth(ack);
    }

    fn on_dupack(&mut self, core: &mut SenderState, a: &Ack) {
        let now = a.now;
        // ns-2 Reno may fast-retransmit again while still in recovery.
        let allow = core.last_action == CwndAction::Dupack;
        on_dupack_common(core, now, allow);
    }

    fn on_timeout(&mut self, core: &mut SenderState, now: Time) {
        timeout_common(core, now);
    }

    /// After an ACK, ns-2 Reno sends unless it saw the first or second
    /// duplicate ACK.
    fn send_budget(&self, core: &SenderState) -> Option<u32> {
        if core.dupacks == 0 || core.dupacks >= core.numdupacks {
            None
        } else {
            Some(0)
        }
    }
}

/// Count a duplicate ACK: fast retransmit at the threshold, inflation past
/// it, limited transmit before it.
pub(super) fn on_dupack_common(core: &mut SenderState, now: Time, allow_fast_retransmit: bool) {
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
fn dupack_action(core: &mut SenderState, now: Time, allow_fast_retransmit: bool) {
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

fn fast_retransmit(core: &mut SenderState, now: Time) {
    core.recover = core.maxseq;
    core.last_action = CwndAction::Dupack;
    core.slowdown(how::SSTHRESH_HALF | how::CWND_HALF);
    core.reset_rtx_timer(now, true, false);
    core.queue_dupack_output(core.highest_ack + 1);
    core.dupwnd = core.numdupacks;
    core.fast_retransmits += 1;
}

/// Reno-family timeout: forget fast recovery, then the common response.
pub(super) fn timeout_common(core: &mut SenderState, now: Time) {
    core.dupwnd = 0;
    core.dupacks = 0;
    core.recover = core.maxseq;
    core.base_timeout(now);
}
