//! Selective acknowledgment: the receiver's SACK blocks (RFC 2018,
//! [`blocks`]) and the sender's SACK-based loss recovery (RFC 6675: the
//! [`scoreboard`], `pipe` and NextSeg, in [`recovery`]). On with `tcp.sack`;
//! the congestion controller keeps its own growth and reduction (the sender
//! calls `Controller::on_sack_recovery` when recovery begins), the recovery
//! decides what is retransmitted and when.
//!
//! Two profiles. `rfc6675` (the default) is RFC 6675 in packet units (one
//! SMSS = one packet): IsLost with DupThresh, SetPipe, NextSeg rules 1 to 4
//! with the rescue retransmission, recovery entered on the DupThresh-th
//! duplicate ACK carrying new SACK information or when IsLost(HighACK + 1),
//! RecoveryPoint = HighData; an RTO expunges the scoreboard (RFC 2018; RFC
//! 6675 5.1 leaves it so), ends recovery and allows no new one until HighACK
//! reaches the RecoveryPoint the RTO set; SACK information arriving after
//! the RTO is used again (go-back-N skips what is SACKed). Where hoptcp
//! differs from RFC 6675 (kept as ns-2's NewReno does, so the two compare):
//! - ssthresh and cwnd at the start of recovery are the controller's
//!   reduction of the window (NewReno: min(cwnd, MaxWin) / 2 as ns-2's
//!   `slowdown()`, CUBIC: beta), not FlightSize / 2;
//! - the ACK that ends recovery is handed to the controller as any new ACK
//!   (NewReno opens cwnd by its usual increment on it);
//! - an ACK is a duplicate when it does not advance the cumulative ACK and
//!   its blocks SACK something not SACKed before (RFC 6675's definition
//!   without the window-update and data checks, which packets here never
//!   need).
//!
//! `ns2_sack1` reproduces ns-2.35's `Agent/TCP/Sack1` with
//! `Agent/TCPSink/Sack1` (tcp/tcp-sack1.cc, scoreboard-rq.cc, tcp-sink.cc's
//! `Sacker`), which differs from RFC 6675 thus:
//! - recovery starts on exactly the `numdupacks_`-th duplicate ACK that
//!   changed the scoreboard (no IsLost(HighACK + 1) entry), and only when
//!   the cumulative ACK has passed the last recovery point (`bug_fix_`);
//!   ssthresh = cwnd = window / 2;
//! - `pipe` is a counter, not SetPipe: maxseq - HighACK - numdupacks at
//!   entry, minus one per ACK in recovery (two on a partial ACK), plus one
//!   per segment sent; segments leave while pipe < floor(cwnd);
//! - what to retransmit: the first hole at or above the last retransmission
//!   that has a SACKed packet above it, once each per recovery (no
//!   DupThresh test, no retransmission of a lost retransmission, no rescue
//!   retransmission); else new data within the receiver window;
//! - a partial ACK re-arms the retransmission timer and ends its backoff;
//!   the ACK reaching the recovery point ends recovery with cwnd left at
//!   its halved value (no increment on that ACK), clears the scoreboard,
//!   and allows the next recovery at once (`recover_ = 0`);
//! - an RTO clears the scoreboard and then ignores duplicate ACKs
//!   altogether until a new cumulative ACK (`timeout_`); go-back-N resends
//!   SACKed packets too;
//! - the sink keeps its blocks on a stack of three, as reported when first
//!   made: the first block is the one holding the packet just received,
//!   then the stack's earlier blocks unless the first covers them (RFC
//!   2018's choice, but an older block is dropped only when the newest
//!   covers it); each block adds 8 bytes to the ACK (`ch->size() +=
//!   sack_index * 8`).
//!
//! Option bytes on the air: `rfc6675` ACKs carry 8 bytes per block plus
//! the 2-byte option header padded with two NOPs (4 + 8n, as RFC 2018's
//! layout); `ns2_sack1` ACKs 8 n, as ns-2's sink adds. Neither profile
//! sends timestamps (hoptcp times RTTs itself, as ns-2's agents do), so no
//! timestamp bytes are counted.

pub(super) mod blocks;
pub(super) mod recovery;
pub(super) mod scoreboard;

use serde::{Deserialize, Serialize};

/// Which SACK behaviour `tcp.sack` turns on (`tcp.sack_profile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum SackProfile {
    /// RFC 2018 blocks and RFC 6675 recovery.
    #[default]
    Rfc6675,
    /// ns-2.35's `Agent/TCP/Sack1` with `Agent/TCPSink/Sack1`.
    Ns2Sack1,
}

/// SACK's counters in a sender's report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackStats {
    /// Loss-recovery episodes begun.
    pub recoveries: u64,
    /// Of those, the ones ended by the ACK reaching the recovery point (not
    /// by a retransmission timeout).
    pub recoveries_completed: u64,
    /// RFC 6675's rescue retransmissions.
    pub rescue_retransmissions: u64,
}
