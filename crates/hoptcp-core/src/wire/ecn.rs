//! ECN in the network (RFC 3168): the congestion signal any queue or marker
//! along the path gives a packet. An ECN-capable packet (ECT) is marked
//! Congestion Experienced (CE) and forwarded; a packet already CE stays CE; a
//! packet that is not ECN-capable cannot carry the mark, so the marker drops
//! it instead (RFC 3168 §5: "drop ... if the ECT codepoint is not set").
//!
//! Markers: Link RED (`mac/link_red.rs`, through `MacEnv::mark_ce`), and any
//! IP-layer marker (LDM) calling [`signal`] on the packet it forwards.

/// The two ECN bits of the IP header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    Ce,
}

/// What a marker wants done to a packet it picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum MarkAction {
    /// RFC 3168: set CE on ECN-capable packets; drop the others.
    #[default]
    Mark,
    /// Set CE on ECN-capable packets; leave the others alone. This is what a
    /// marker that sets the CE bit without checking ECT amounts to (ns-2
    /// markers writing `hdr_flags::ce()`: TCP ignores CE on its ACKs).
    MarkEctOnly,
    /// Drop the packet whatever its ECN codepoint.
    Drop,
}

impl MarkAction {
    /// Does this action ever set CE?
    pub fn marks(self) -> bool {
        self != MarkAction::Drop
    }
}

/// What the signal did to the packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalOutcome {
    /// The packet carries CE (set now, or already set upstream); forward it.
    Marked,
    /// Not ECN-capable, and the action spares such packets: forward it as it is.
    Passed,
    /// The packet must be dropped by the caller.
    Dropped,
}

/// Set CE on an ECN-capable packet. Returns false, leaving the codepoint
/// alone, when the packet is not ECN-capable (the caller must then drop it).
#[inline]
pub fn mark_ce(ecn: &mut Ecn) -> bool {
    match *ecn {
        Ecn::Ect | Ecn::Ce => {
            *ecn = Ecn::Ce;
            true
        }
        Ecn::NotEct => false,
    }
}

/// Apply a marker's congestion signal to a packet's ECN field.
#[inline]
pub fn signal(action: MarkAction, ecn: &mut Ecn) -> SignalOutcome {
    match action {
        MarkAction::Drop => SignalOutcome::Dropped,
        _ if mark_ce(ecn) => SignalOutcome::Marked,
        MarkAction::MarkEctOnly => SignalOutcome::Passed,
        MarkAction::Mark => SignalOutcome::Dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ce_only_on_ect_packets() {
        let mut e = Ecn::Ect;
        assert!(mark_ce(&mut e));
        assert_eq!(e, Ecn::Ce);
        let mut n = Ecn::NotEct;
        assert!(!mark_ce(&mut n));
        assert_eq!(n, Ecn::NotEct, "a non-ECT packet is never given CE");
        let mut c = Ecn::Ce;
        assert!(mark_ce(&mut c));
        assert_eq!(c, Ecn::Ce, "CE stays CE");
    }

    #[test]
    fn each_action_on_ect_and_non_ect_packets() {
        use MarkAction::{Drop, Mark, MarkEctOnly};
        use SignalOutcome::{Dropped, Marked, Passed};
        // (action, codepoint before, outcome, codepoint after)
        let cases = [
            (Mark, Ecn::Ect, Marked, Ecn::Ce),
            (Mark, Ecn::NotEct, Dropped, Ecn::NotEct), // mark drops the rest
            (MarkEctOnly, Ecn::Ect, Marked, Ecn::Ce),
            (MarkEctOnly, Ecn::NotEct, Passed, Ecn::NotEct), // spares non-ECT packets
            (Drop, Ecn::Ect, Dropped, Ecn::Ect),             // a dropped packet is not marked
        ];
        for (action, before, outcome, after) in cases {
            let mut e = before;
            assert_eq!(signal(action, &mut e), outcome, "{action:?} on {before:?}");
            assert_eq!(e, after, "{action:?} on {before:?}");
        }
    }
}
