//! AODV messages in their RFC 3561 wire format (the UDP payload on port
//! 654), for packet traces. The simulation itself times messages with
//! ns-2.35's sizes (`aodv.rs`); a trace shows what a real implementation
//! would send. Addresses are given by the caller (`ip` maps a node id to
//! its IPv4 address); ns-2's timestamps have no RFC field and are left out.

use super::aodv::{AodvMsg, Rerr, Rrep, Rreq};
use super::node::NodeId;
use crate::engine::NS_PER_MS;

/// UDP port of AODV (RFC 3561 section 8).
pub const AODV_PORT: u16 = 654;

/// Message types (RFC 3561 sections 5.1–5.3).
pub const TYPE_RREQ: u8 = 1;
pub const TYPE_RREP: u8 = 2;
pub const TYPE_RERR: u8 = 3;

/// Bytes of the encoded message.
pub fn encoded_len(msg: &AodvMsg) -> usize {
    match msg {
        AodvMsg::Rreq(_) => 24,
        AodvMsg::Rrep(_) | AodvMsg::Hello(_) => 20,
        AodvMsg::Rerr(e) => 4 + 8 * e.len(),
    }
}

/// Append `msg` in RFC 3561 format. `originator` is the RREP's "Originator
/// IP Address" (the node that sent the RREQ, i.e. the RREP's IP destination).
pub fn encode(msg: &AodvMsg, originator: NodeId, ip: impl Fn(NodeId) -> [u8; 4], out: &mut Vec<u8>) {
    match msg {
        AodvMsg::Rreq(Rreq { hop_count, bcast_id, dst, dst_seqno, src, src_seqno, .. }) => {
            // Flags J R G D U all clear (ns-2 sets none), reserved zero.
            out.extend_from_slice(&[TYPE_RREQ, 0, 0, *hop_count]);
            out.extend_from_slice(&bcast_id.to_be_bytes());
            out.extend_from_slice(&ip(*dst));
            out.extend_from_slice(&dst_seqno.to_be_bytes());
            out.extend_from_slice(&ip(*src));
            out.extend_from_slice(&src_seqno.to_be_bytes());
        }
        AodvMsg::Rrep(Rrep { hop_count, dst, dst_seqno, lifetime, .. }) => {
            // Flags R A clear, prefix size 0.
            out.extend_from_slice(&[TYPE_RREP, 0, 0, *hop_count]);
            out.extend_from_slice(&ip(*dst));
            out.extend_from_slice(&dst_seqno.to_be_bytes());
            out.extend_from_slice(&ip(originator));
            let ms = (lifetime / NS_PER_MS).min(u32::MAX as u64) as u32;
            out.extend_from_slice(&ms.to_be_bytes());
        }
        AodvMsg::Rerr(e) => encode_rerr(e, &ip, out),
        // RFC 3561 §6.9: a HELLO is a RREP naming its sender as destination.
        AodvMsg::Hello(rp) => encode(&AodvMsg::Rrep(*rp), rp.dst, ip, out),
    }
}

fn encode_rerr(e: &Rerr, ip: &impl Fn(NodeId) -> [u8; 4], out: &mut Vec<u8>) {
    // Flag N clear, reserved zero, DestCount.
    out.extend_from_slice(&[TYPE_RERR, 0, 0, e.len() as u8]);
    for &(dst, seqno) in e.entries() {
        out.extend_from_slice(&ip(dst));
        out.extend_from_slice(&seqno.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    fn ip(n: NodeId) -> [u8; 4] {
        [10, 0, 0, n as u8 + 1]
    }

    #[test]
    fn rreq_layout() {
        let m = AodvMsg::Rreq(Rreq {
            hop_count: 2,
            bcast_id: 0x0102_0304,
            dst: 7,
            dst_seqno: 9,
            src: 0,
            src_seqno: 4,
            timestamp: 5,
        });
        let mut b = Vec::new();
        encode(&m, 0, ip, &mut b);
        assert_eq!(b.len(), encoded_len(&m));
        assert_eq!(&b[..8], &[1, 0, 0, 2, 1, 2, 3, 4]);
        assert_eq!(&b[8..12], &[10, 0, 0, 8]);
        assert_eq!(&b[12..16], &9u32.to_be_bytes());
        assert_eq!(&b[16..20], &[10, 0, 0, 1]);
        assert_eq!(&b[20..24], &4u32.to_be_bytes());
    }

    #[test]
    fn rrep_layout_gives_lifetime_in_ms() {
        let m =
            AodvMsg::Rrep(Rrep { hop_count: 1, dst: 7, dst_seqno: 6, src: 7, lifetime: 10 * NS_PER_S, timestamp: 0 });
        let mut b = Vec::new();
        encode(&m, 0, ip, &mut b);
        assert_eq!(b.len(), 20);
        assert_eq!(&b[..4], &[2, 0, 0, 1]);
        assert_eq!(&b[4..8], &[10, 0, 0, 8]);
        assert_eq!(&b[12..16], &[10, 0, 0, 1]);
        assert_eq!(&b[16..20], &10_000u32.to_be_bytes());
    }

    #[test]
    fn rerr_layout() {
        let mut e = Rerr::default();
        e.push(7, 5);
        e.push(3, 11);
        let m = AodvMsg::Rerr(e);
        let mut b = Vec::new();
        encode(&m, 0, ip, &mut b);
        assert_eq!(b.len(), 4 + 16);
        assert_eq!(&b[..4], &[3, 0, 0, 2]);
        assert_eq!(&b[4..12], &[10, 0, 0, 8, 0, 0, 0, 5]);
        assert_eq!(&b[12..20], &[10, 0, 0, 4, 0, 0, 0, 11]);
    }
}
