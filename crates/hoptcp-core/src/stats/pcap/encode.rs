//! One simulated frame as captured bytes: radiotap + 802.11 (link type
//! 127). DATA frames carry LLC/SNAP, a real IPv4 header and a UDP or TCP
//! header with valid checksums; payload bytes are zeros and cut at the snap
//! length, as a capture with a snaplen would be.
//!
//! TCP numbers are bytes, as Wireshark expects: the setup segment (packet 0)
//! is a SYN with sequence 0, data packet k starts at byte 1 + (k-1)·payload,
//! the receiver's ACK of the SYN is a SYN-ACK (its own sequence 0), its
//! later ACKs carry sequence 1 and name the next byte expected, and data
//! segments carry the ACK flag acknowledging the SYN-ACK. The window field
//! is 65,535 (no scaling).
//!
//! Addresses: node i has MAC 02:00:00:00:hh:ll (i = hhll) and IPv4 10.0.x.y
//! with x.y = i + 1 (so node 0 is 10.0.0.1). The radio is labelled as
//! 2.4 GHz channel 1 (DSSS) or 5 GHz channel 36 (OFDM); ns-2's 914 MHz
//! WaveLAN has no 802.11 channel number.
//!
//! AODV messages are UDP on port 654 in their RFC 3561 layout
//! (`net::routing::aodv::wire`), so their lengths in the trace are the
//! RFC's, not the ns-2 sizes the simulation uses.

use crate::mac::Standard;
use crate::wire::{aodv_rfc3561, AodvMsg};
use crate::wire::{Body, Ecn, Packet};
use crate::wire::{Frame, FrameKind, BROADCAST};
use etherparse::{IpEcn, IpNumber, Ipv4Header, TcpHeader, UdpHeader};

/// Bytes kept of each frame (radiotap + 802.11 + LLC + IP + TCP headers and
/// some payload).
pub const SNAPLEN: u32 = 160;

/// What the encoder needs to know about a flow.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowInfo {
    /// TCP payload bytes per packet (to show sequence numbers in bytes); 1 for UDP.
    pub mss: u32,
    /// The TCP flow starts with a setup segment (SYN).
    pub syn: bool,
}

/// Encodes frames into a reused buffer.
pub struct FrameEncoder {
    flows: Vec<FlowInfo>,
    buf: Vec<u8>,
    zeros: Vec<u8>,
}

pub fn mac_addr(node: u32) -> [u8; 6] {
    if node == BROADCAST {
        return [0xff; 6];
    }
    let b = node.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

pub fn ip_addr(node: u32) -> [u8; 4] {
    if node == BROADCAST {
        return [0xff; 4];
    }
    let v = node.wrapping_add(1) | 0x0a00_0000;
    v.to_be_bytes()
}

impl FrameEncoder {
    pub fn new(flows: Vec<FlowInfo>) -> Self {
        FrameEncoder { flows, buf: Vec::with_capacity(2048), zeros: Vec::new() }
    }

    /// The captured bytes of `frame` sent at `rate_bps` (`packet`: the
    /// carried packet of DATA frames) and its length on the medium.
    pub fn encode(
        &mut self,
        frame: &Frame,
        rate_bps: f64,
        standard: Standard,
        packet: Option<&Packet>,
    ) -> std::io::Result<(&[u8], u32)> {
        let b = &mut self.buf;
        b.clear();
        // Radiotap: version, pad, length 14, present = Flags | Rate | Channel.
        b.extend_from_slice(&[0, 0, 14, 0]);
        b.extend_from_slice(&0x0000_000eu32.to_le_bytes());
        b.push(0); // flags: no FCS included
        b.push((rate_bps / 500_000.0).round() as u8);
        let (freq, chan_flags): (u16, u16) = match standard {
            Standard::Dsss | Standard::Ns2G => (2412, 0x0080 | 0x0020),
            Standard::Ofdm => (5180, 0x0100 | 0x0040),
            // 2 GHz, dynamic CCK-OFDM.
            Standard::Erp => (2412, 0x0080 | 0x0400),
        };
        b.extend_from_slice(&freq.to_le_bytes());
        b.extend_from_slice(&chan_flags.to_le_bytes());
        let dur = (frame.nav / 1000).min(u16::MAX as u64) as u16;
        let retry = if frame.retry { 0x08 } else { 0x00 };
        match frame.kind {
            FrameKind::Rts => {
                b.extend_from_slice(&[0xb4, retry]);
                b.extend_from_slice(&dur.to_le_bytes());
                b.extend_from_slice(&mac_addr(frame.ra));
                b.extend_from_slice(&mac_addr(frame.ta));
            }
            FrameKind::Cts | FrameKind::Ack => {
                b.extend_from_slice(&[if frame.kind == FrameKind::Cts { 0xc4 } else { 0xd4 }, 0]);
                b.extend_from_slice(&dur.to_le_bytes());
                b.extend_from_slice(&mac_addr(frame.ra));
            }
            FrameKind::Data => {
                b.extend_from_slice(&[0x08, retry]);
                b.extend_from_slice(&dur.to_le_bytes());
                b.extend_from_slice(&mac_addr(frame.ra));
                b.extend_from_slice(&mac_addr(frame.ta));
                b.extend_from_slice(&[0x02, 0, 0, 0, 0, 0xbb]); // BSSID of the ad hoc network
                b.extend_from_slice(&((frame.seq & 0x0fff) << 4).to_le_bytes());
                b.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]); // LLC/SNAP, IPv4
                if let Some(p) = packet {
                    write_ip(b, p, &mut self.zeros, &self.flows)?;
                }
            }
        }
        // Full length: radiotap + MPDU without FCS (+ the zero payload).
        let orig_len = match (frame.kind, packet) {
            (FrameKind::Data, Some(p)) => 14 + 24 + 8 + traced_ip_bytes(p),
            _ => b.len(),
        };
        let incl = b.len().min(SNAPLEN as usize);
        Ok((&b[..incl], orig_len.max(incl) as u32))
    }
}

/// Length of the IP packet as written to the trace.
fn traced_ip_bytes(p: &Packet) -> usize {
    match &p.body {
        Body::Aodv(msg) => 20 + 8 + aodv_rfc3561::encoded_len(msg),
        _ => p.ip_bytes as usize,
    }
}

/// An AODV message: IPv4 + UDP (port 654) + the RFC 3561 message.
fn write_aodv(b: &mut Vec<u8>, p: &Packet, msg: &AodvMsg) -> std::io::Result<()> {
    let mut payload = Vec::with_capacity(aodv_rfc3561::encoded_len(msg));
    aodv_rfc3561::encode(msg, p.dst, ip_addr, &mut payload);
    let mut ip = Ipv4Header::new((8 + payload.len()) as u16, p.ttl, IpNumber::UDP, ip_addr(p.src), ip_addr(p.dst))
        .map_err(std::io::Error::other)?;
    ip.identification = (p.uid & 0xffff) as u16;
    ip.header_checksum = ip.calc_header_checksum();
    ip.write(b)?;
    let udp = UdpHeader::with_ipv4_checksum(aodv_rfc3561::AODV_PORT, aodv_rfc3561::AODV_PORT, &ip, &payload)
        .map_err(std::io::Error::other)?;
    udp.write(b)?;
    let room = (SNAPLEN as usize).saturating_sub(b.len());
    b.extend_from_slice(&payload[..payload.len().min(room)]);
    Ok(())
}

/// IPv4 header and transport header with correct checksums; the payload is
/// zeros (only its length matters to the simulation).
fn write_ip(b: &mut Vec<u8>, p: &Packet, zeros: &mut Vec<u8>, flows: &[FlowInfo]) -> std::io::Result<()> {
    if let Body::Aodv(msg) = &p.body {
        return write_aodv(b, p, msg);
    }
    let payload_len = p.payload_bytes() as usize;
    if zeros.len() < payload_len {
        zeros.resize(payload_len, 0);
    }
    let payload = &zeros[..payload_len];
    let transport_len = p.ip_bytes.saturating_sub(20) as u16;
    let port = 49_152 + (p.flow % 16_000) as u16;
    let proto = match p.body {
        Body::Tcp(_) => IpNumber::TCP,
        _ => IpNumber::UDP,
    };
    let mut ip =
        Ipv4Header::new(transport_len, p.ttl, proto, ip_addr(p.src), ip_addr(p.dst)).map_err(std::io::Error::other)?;
    ip.ecn = match p.ecn {
        Ecn::NotEct => IpEcn::NotEct,
        Ecn::Ect => IpEcn::Ect0,
        Ecn::Ce => IpEcn::CongestionExperienced,
    };
    ip.identification = (p.uid & 0xffff) as u16;
    ip.header_checksum = ip.calc_header_checksum();
    ip.write(b)?;
    match p.body {
        Body::Udp { .. } | Body::Aodv(_) => {
            let udp = UdpHeader::with_ipv4_checksum(port, port, &ip, payload).map_err(std::io::Error::other)?;
            udp.write(b)?;
        }
        Body::Tcp(seg) => {
            let flow = flows.get(p.flow as usize).copied().unwrap_or_default();
            let (sport, dport) = if p.reverse { (80, port) } else { (port, 80) };
            let tcp = tcp_header(&seg, flow, sport, dport, &ip, payload)?;
            tcp.write(b)?;
        }
    }
    let room = (SNAPLEN as usize).saturating_sub(b.len());
    b.extend_from_slice(&payload[..payload_len.min(room)]);
    Ok(())
}

/// Packet-counted TCP numbers as bytes (see the module comment).
fn tcp_header(
    seg: &crate::wire::tcp_segment::TcpSegment,
    flow: FlowInfo,
    sport: u16,
    dport: u16,
    ip: &Ipv4Header,
    payload: &[u8],
) -> std::io::Result<TcpHeader> {
    let mss = flow.mss.max(1) as u64;
    let mut tcp = TcpHeader::new(sport, dport, 0, 65_535);
    tcp.ack = true;
    if seg.is_ack {
        // The cumulative ack names the highest in-order packet: the next
        // byte expected follows it. Acking packet 0 (the SYN) is the SYN-ACK.
        tcp.syn = flow.syn && seg.ack == 0;
        tcp.sequence_number = if tcp.syn { 0 } else { 1 };
        tcp.acknowledgment_number = seg.ack.wrapping_mul(mss).wrapping_add(1) as u32;
        tcp.ece = seg.ece;
    } else if seg.syn {
        tcp.syn = true;
        tcp.ack = false;
    } else {
        tcp.sequence_number = seg.seq.saturating_sub(1).wrapping_mul(mss).wrapping_add(1) as u32;
        tcp.acknowledgment_number = 1;
        tcp.cwr = seg.cwr;
    }
    if seg.option_bytes > 0 {
        tcp.set_options_raw(&sack_option(seg, mss)).map_err(std::io::Error::other)?;
    }
    tcp.checksum = tcp.calc_checksum_ipv4(ip, payload).map_err(std::io::Error::other)?;
    Ok(tcp)
}

/// The SACK option (kind 5) of an ACK in exactly its `option_bytes`: two
/// NOPs first when the profile counts them (RFC 2018's layout, 4 + 8n),
/// else as many blocks as fit, NOP-padded (ns-2 counts 8 bytes a block and
/// no option header, so its ACKs show one block fewer; one block: NOPs only). Packet p holds bytes (p - 1)·mss + 1 ..= p·mss.
fn sack_option(seg: &crate::wire::tcp_segment::TcpSegment, mss: u64) -> Vec<u8> {
    let room = seg.option_bytes as usize;
    let mut o = Vec::with_capacity(room);
    if room % 8 == 4 {
        o.extend_from_slice(&[1, 1]);
    }
    let fit = (room - o.len()).saturating_sub(2) / 8;
    let blocks: Vec<(u64, u64)> = seg.sack_blocks().take(fit).collect();
    if blocks.is_empty() {
        // ns-2's one block (8 bytes) leaves no room for an option header.
        o.resize(room, 1);
        return o;
    }
    o.extend_from_slice(&[5, 2 + 8 * blocks.len() as u8]);
    for (l, r) in blocks {
        for edge in [l, r] {
            o.extend_from_slice(&((edge - 1).wrapping_mul(mss).wrapping_add(1) as u32).to_be_bytes());
        }
    }
    o.resize(room, 1);
    o
}
