//! Packet traces for Wireshark/tshark, as pcapng with one interface per
//! node: each node's interface holds the frames that node put on the air and
//! the frames it received addressed to it (or broadcast), as a monitor-mode
//! capture on that node would show them (link type 127, radiotap + 802.11).
//! Filtered to one node (`frame.interface_id == N`, or the interface named
//! `node N`), Wireshark's TCP analysis sees each segment once, as the node's
//! own TCP would.
//!
//! [`encode`] turns one simulated frame into bytes (radiotap, 802.11,
//! LLC/SNAP, IPv4, UDP or TCP with valid checksums); [`writer`] writes
//! pcapng blocks for any set of interfaces and link types. The two are
//! separate so that new packet kinds add an encoder and new link kinds add
//! an interface, without touching the other.

pub mod encode;
pub mod writer;

pub use encode::{ip_addr, mac_addr, FlowInfo, FrameEncoder, SNAPLEN};
pub use writer::{Interface, PcapNgWriter};

use crate::engine::Time;
use crate::mac::{Frame, Standard};
use crate::net::Packet;

/// The trace of one run: a pcapng file with interface `i` = node `i`.
pub struct PcapTrace {
    writer: PcapNgWriter,
    encoder: FrameEncoder,
    frames: u64,
}

impl PcapTrace {
    /// Create `path` with one 802.11 interface per node.
    pub fn create(path: &std::path::Path, nodes: u32, flows: Vec<FlowInfo>) -> std::io::Result<Self> {
        let interfaces = (0..nodes).map(|i| {
            let [a, b, c, d] = ip_addr(i);
            let mac = mac_addr(i).map(|x| format!("{x:02x}")).join(":");
            Interface::ieee802_11_radiotap(format!("node {i}"), format!("{a}.{b}.{c}.{d} {mac}"), SNAPLEN)
        });
        let writer = PcapNgWriter::create(path, interfaces)?;
        Ok(PcapTrace { writer, encoder: FrameEncoder::new(flows), frames: 0 })
    }

    /// Records written (a frame sent and received counts once per node).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Record `frame`, sent or received at `t` by `node` at `rate_bps`;
    /// `packet` is the carried packet for DATA frames.
    pub fn record(
        &mut self,
        node: u32,
        t: Time,
        frame: &Frame,
        rate_bps: f64,
        standard: Standard,
        packet: Option<&Packet>,
    ) -> std::io::Result<()> {
        let (bytes, orig_len) = self.encoder.encode(frame, rate_bps, standard, packet)?;
        self.writer.write_packet(node, t, orig_len, bytes)?;
        self.frames += 1;
        Ok(())
    }

    /// Flush buffered records to the file.
    pub fn finish(self) -> std::io::Result<()> {
        self.writer.finish()
    }
}
