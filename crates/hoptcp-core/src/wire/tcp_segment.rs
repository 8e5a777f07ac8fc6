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
    /// ACKs of a SACK receiver: the SACK blocks (RFC 2018), most recent first.
    pub sack: SackBlocks,
    /// TCP option bytes this segment carries (SACK blocks as the receiver's
    /// profile counts them); added to the IP size.
    pub option_bytes: u8,
}

/// At most this many SACK blocks per ACK (ns-2's `maxSackBlocks_` 3; RFC
/// 2018: 3 when the timestamp option is present, 4 without).
pub const MAX_SACK_BLOCKS: usize = 3;

/// The SACK blocks of one ACK, each `[left, right)` in packet numbers
/// (right edge exclusive, as RFC 2018's edges), stored as offsets from the
/// cumulative ACK so that a segment stays small. A block starting more than
/// `u16::MAX` packets above the ACK is not carried; one ending beyond that
/// is cut there (a smaller block is still a true one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    edges: [(u16, u16); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// Append `[left, right)` for an ACK of `ack`; blocks at or below the
    /// cumulative ACK carry nothing and are skipped. False when full.
    pub fn push(&mut self, ack: u64, left: u64, right: u64) -> bool {
        if self.len as usize == MAX_SACK_BLOCKS {
            return false;
        }
        if left > ack && right > left && left - ack <= u16::MAX as u64 {
            let r = (right - ack).min(u16::MAX as u64);
            self.edges[self.len as usize] = ((left - ack) as u16, r as u16);
            self.len += 1;
        }
        true
    }

    /// The blocks as `[left, right)` packet numbers for an ACK of `ack`.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.edges[..self.len as usize].iter().map(move |&(l, r)| (ack + l as u64, ack + r as u64))
    }
}

impl TcpSegment {
    /// Size of the IP packet carrying this segment.
    pub fn ip_bytes(&self) -> u32 {
        self.payload_bytes + TCPIP_HEADER_BYTES + self.option_bytes as u32
    }

    /// This ACK's SACK blocks as `[left, right)` packet numbers.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack.iter(self.ack)
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
        // Segments live inline in every packet record; three SACK blocks
        // as 16-bit offsets take 13 of these bytes.
        assert!(std::mem::size_of::<TcpSegment>() <= 56, "{}", std::mem::size_of::<TcpSegment>());
    }

    #[test]
    fn sack_blocks_round_trip_and_count_in_size() {
        let mut a = TcpSegment::new_ack(10, 0);
        assert!(a.sack.push(10, 14, 17));
        assert!(a.sack.push(10, 5, 8), "a block below the ACK is skipped, not refused");
        assert!(a.sack.push(10, 12, 13));
        assert!(a.sack.push(10, 20, 21));
        assert!(!a.sack.push(10, 30, 31), "three blocks at most");
        assert_eq!(a.sack_blocks().collect::<Vec<_>>(), vec![(14, 17), (12, 13), (20, 21)]);
        a.option_bytes = 24;
        assert_eq!(a.ip_bytes(), 64);
        let mut far = SackBlocks::default();
        far.push(0, 70_000, 70_001);
        far.push(0, 1, 80_000);
        assert_eq!(far.iter(0).collect::<Vec<_>>(), vec![(1, 65_535)]);
    }
}
