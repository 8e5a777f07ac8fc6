//! The TCP segment exchanged between sender and receiver.

use crate::engine::Time;

/// TCP/IP header bytes added to every segment (ns-2 `tcpip_base_hdr_size_`).
pub const TCPIP_HEADER_BYTES: u32 = 40;

/// One TCP segment: data (or the setup segment) from sender to receiver, or
/// a pure ACK back. Small and `Copy` so the simulator can keep it inline in
/// its packet records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpSegment {
    /// Data: packet number. 0 is the connection-setup segment (40 B, no
    /// payload); data starts at 1.
    pub seq: u64,
    /// ACK segments: cumulative ack, the highest in-order packet received.
    pub ack: u64,
    pub is_ack: bool,
    pub syn: bool,
    /// ECN-Echo (receiver -> sender).
    pub ece: bool,
    /// Congestion Window Reduced (sender -> receiver).
    pub cwr: bool,
    /// The sender asks IP to set ECT on this data packet.
    pub ect: bool,
    /// 0 for the setup segment and pure ACKs.
    pub payload_bytes: u32,
    /// When the segment was sent; on an ACK, when the data segment that
    /// triggered it was sent (TCP-AP's RTT samples; the RTO estimator times
    /// RTTs itself).
    pub ts: Time,
    /// TCP-GAP's 16-bit option on ACKs: the round trip (ms) of the wired
    /// part, written by the Internet gateway. Carried without extra bytes
    /// (as the ns-2 implementation's header field).
    pub rtt_wired_ms: Option<u16>,
}

impl TcpSegment {
    /// Size of the IP packet carrying this segment.
    pub fn ip_bytes(&self) -> u32 {
        self.payload_bytes + TCPIP_HEADER_BYTES
    }

    /// A pure cumulative ACK.
    pub fn new_ack(ack: u64, ts: Time) -> Self {
        TcpSegment { ack, is_ack: true, ts, ..Default::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_bytes_adds_header() {
        let data = TcpSegment { seq: 5, payload_bytes: 1460, ..Default::default() };
        assert_eq!(data.ip_bytes(), 1500);
        assert_eq!(TcpSegment::new_ack(4, 0).ip_bytes(), 40);
        let syn = TcpSegment { syn: true, ..Default::default() };
        assert_eq!(syn.ip_bytes(), 40);
        let gap = TcpSegment { rtt_wired_ms: Some(80), ..TcpSegment::new_ack(4, 0) };
        assert_eq!(gap.ip_bytes(), 40, "the option adds no bytes");
    }

    #[test]
    fn segment_stays_small() {
        // Segments live inline in every packet record.
        assert!(std::mem::size_of::<TcpSegment>() <= 40, "{}", std::mem::size_of::<TcpSegment>());
    }
}
