//! Frames built by hand for the MAC's unit tests.

use super::MacParams;
use crate::wire::{Frame, FrameKind, NodeId, NO_PACKET};

/// A DATA frame from `ta` to `ra` carrying an IP packet of `ip_bytes`
/// (slab packet 0, MAC sequence number 1, first attempt).
pub(crate) fn data(p: &MacParams, ta: NodeId, ra: NodeId, ip_bytes: u32) -> Frame {
    let bytes = p.data_bytes(ip_bytes);
    Frame {
        kind: FrameKind::Data,
        ta,
        ra,
        nav: 0,
        seq: 1,
        retry: false,
        bytes,
        airtime: p.timing.data_airtime(bytes),
        packet: 0,
    }
}

/// An RTS from `ta` to `ra` whose Duration field reserves `nav`.
pub(crate) fn rts(p: &MacParams, ta: NodeId, ra: NodeId, nav: crate::engine::Time) -> Frame {
    Frame { kind: FrameKind::Rts, ta, ra, nav, seq: 0, retry: false, bytes: 20, airtime: p.rts_time, packet: NO_PACKET }
}
