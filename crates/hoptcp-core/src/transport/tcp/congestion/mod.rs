//! Congestion controllers behind one narrow trait, one file each.
//!
//! The sender (`sender.rs`) owns the transmit loop, the retransmission
//! timer, RTT timing, TCP-AP pacing and the statistics; it names a
//! controller only as a `Box<dyn Controller>` made by [`for_config`], and
//! calls it at five points: a new ACK, a duplicate ACK, an ECN-Echo, a
//! retransmission timeout and every transmission. Between those calls it
//! asks [`Controller::send_budget`] how many window sends the last ACK
//! allows. No controller imports the sender: they act on the shared
//! [`SenderState`] (`state.rs`: cwnd, ssthresh, `recover`, the forced-send
//! queue, ns-2's `slowdown()`/`newack()` helpers), which imports neither.
//!
//! # The trait's shape, and what later controllers hang on it
//!
//! - [`Controller::on_ack`] / [`Controller::on_dupack`] get an [`Ack`]:
//!   the time, the cumulative ACK (packet number) and ECN-Echo. A
//!   controller grows or cuts `state.cwnd`/`state.ssthresh` and queues
//!   retransmissions with `state.queue_output()`; the sender then sends
//!   what `state.window()` allows, within [`Controller::send_budget`].
//! - Loss recovery lives in the controller, as in ns-2 (each `Agent/TCP/*`
//!   variant has its own `dupack_action()`): Reno-family recovery is in
//!   `reno.rs`, shared by NewReno. With `tcp.sack` the sender hands ACKs to
//!   SACK recovery instead (`sack/recovery.rs`, RFC 6675 or ns-2's Sack1),
//!   which calls [`Controller::on_ack`] for new ACKs outside recovery and
//!   [`Controller::on_sack_recovery`] for the reduction when recovery
//!   begins, and chooses the packets sent during recovery. A controller
//!   with its own SACK machinery (TCP-Linux's, `cubic/ns2_linux_sack.rs`)
//!   says so with [`Controller::own_sack`]: it then gets every ACK with its
//!   blocks and chooses every segment sent ([`Controller::next_segment`]).
//! - Time-based growth (CUBIC, RFC 9438, `cubic.rs`): every call carries
//!   `now`, and [`Ack::rtt`] is the RTT sample of the segment the ACK
//!   echoes, which CUBIC's target W_cubic(t + RTT) and HyStart++'s rounds
//!   need; W_max, K and the epoch stay inside the controller. A controller
//!   with its own reduction factor reuses the shared recovery and sets
//!   ssthresh/cwnd after it (CUBIC's beta 0.7).
//! - Delivery-rate control (BBR, `bbr.rs` with its model, rate samples and
//!   filter in `bbr/`): [`Controller::on_transmit`] sees every
//!   segment leaving (send time, packet number), so per-packet delivery
//!   state can be recorded at send time and a rate sample formed on the
//!   ACK (add the sample to [`Ack`], computed by the sender from what it
//!   recorded, or inside the controller from `on_transmit`); BBR sets
//!   `state.cwnd` directly and would add a `pacing_rate()` query, read by
//!   the sender's transmit path the way TCP-AP's pacer is now.
//!
//! Every hook is called exactly where the pre-trait enum dispatch called
//! it, so results are bit-identical to before.

pub(super) mod bbr;
mod cubic;
mod newreno;
mod reno;
mod vegas;

use super::config::{CubicProfile, TcpConfig, Variant};
use super::sack::SackStats;
use super::state::{how, SenderState};
use crate::engine::Time;

/// One ACK as a controller sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ack {
    pub now: Time,
    /// Cumulative ACK: the highest in-order packet received.
    pub ack: i64,
    /// ECN-Echo set on the ACK.
    pub ece: bool,
    /// Now minus the send time the ACK echoes: the RTT of the segment that
    /// triggered it (CUBIC's smoothed RTT and HyStart++'s round minimum).
    pub rtt: Option<Time>,
}

/// A congestion-control variant. Implementations keep their own state and
/// change the sender's through `state`.
pub(super) trait Controller: std::fmt::Debug + Send {
    /// An ACK for data not acknowledged before.
    fn on_ack(&mut self, state: &mut SenderState, ack: &Ack);

    /// An ACK repeating the highest cumulative ACK.
    fn on_dupack(&mut self, state: &mut SenderState, ack: &Ack);

    /// The retransmission timer expired (with or without data outstanding).
    fn on_timeout(&mut self, state: &mut SenderState, now: Time);

    /// SACK loss recovery begins (`tcp.sack`; `sack/recovery.rs` decides
    /// what to retransmit): set ssthresh and cwnd. ns-2's halving of the
    /// window unless the variant cuts otherwise.
    fn on_sack_recovery(&mut self, state: &mut SenderState) {
        state.slowdown(how::SSTHRESH_HALF | how::CWND_HALF);
    }

    /// ECN-Echo, before the ACK's own handling: all of ns-2's variants share
    /// `TcpAgent::ecn()`.
    fn on_ecn(&mut self, state: &mut SenderState, ack: i64) {
        state.ecn_response(ack);
    }

    /// Segment `seq` is leaving now (first transmission or not).
    fn on_transmit(&mut self, _state: &SenderState, _now: Time, _seq: i64) {}

    /// How many window sends the ACK just processed allows (`None`: no
    /// limit; ns-2 `recv()`'s `send_much()` arguments).
    fn send_budget(&self, state: &SenderState) -> Option<u32>;

    /// A pacing controller holds window sends until this time (None: not now).
    fn pacing_deadline(&self, _state: &SenderState, _now: Time) -> Option<Time> {
        None
    }

    /// The application offers more data (before the sender counts it).
    fn on_app_data(&mut self, _state: &SenderState) {}

    /// Seed the controller's own random draws (the flow's stream).
    fn seed(&mut self, _seed: u64) {}

    /// BBR's model, for the `bbr` series and tests (None: not BBR).
    fn bbr(&self) -> Option<&bbr::model::Bbr> {
        None
    }

    /// BBR's report (None: not BBR).
    fn bbr_stats(&self, _now: Time) -> Option<bbr::BbrStats> {
        None
    }

    /// The controller keeps its own SACK scoreboard and loss recovery
    /// (TCP-Linux with `tcp.sack`): the sender runs no `sack/` recovery,
    /// hands it every ACK at or above the highest with its blocks through
    /// [`Controller::on_sack_ack`], and takes what leaves from
    /// [`Controller::next_segment`] instead of its window loop.
    fn own_sack(&self) -> bool {
        false
    }

    /// An ACK with its SACK blocks (`[left, right)`), `own_sack` controllers only.
    fn on_sack_ack(&mut self, _state: &mut SenderState, _ack: &Ack, _blocks: &[(i64, i64)]) {}

    /// The next segment to send now (`own_sack` controllers only; None: nothing).
    fn next_segment(&mut self, _state: &mut SenderState) -> Option<i64> {
        None
    }

    /// The recovery counters of an `own_sack` controller.
    fn sack_stats(&self) -> Option<SackStats> {
        None
    }
}

/// The controller `cfg.variant` names.
pub(super) fn for_config(cfg: &TcpConfig, state: &SenderState) -> Box<dyn Controller> {
    match cfg.variant {
        Variant::NewReno => Box::new(newreno::NewReno::default()),
        Variant::Reno => Box::new(reno::Reno),
        Variant::Vegas => Box::new(vegas::Vegas::new(cfg)),
        Variant::Cubic => match cfg.cubic_profile {
            CubicProfile::Rfc9438 => Box::new(cubic::Cubic::new()),
            CubicProfile::Ns2Linux if cfg.sack.is_some() => {
                Box::new(cubic::ns2_linux_sack::Ns2LinuxSackCubic::new(state))
            }
            CubicProfile::Ns2Linux => Box::new(cubic::ns2_linux::Ns2LinuxCubic::new(state)),
        },
        Variant::Bbr => Box::new(bbr::BbrController::new(cfg, bbr::model::Draws::new(&cfg.bbr_phases, 0))),
    }
}
