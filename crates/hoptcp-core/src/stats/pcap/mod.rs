//! Packet traces for Wireshark/tshark, as pcapng with one interface per
//! node: each node's interface holds the frames that node put on the air and
//! the frames it received addressed to it (or broadcast), as a monitor-mode
//! capture on that node would show them (link type 127, radiotap + 802.11).
//! A display filter (`frame.interface_id == N`) does not isolate a node for
//! Wireshark's TCP analysis, which runs over every interface's frames; a
//! trace of one node alone ([`PcapTrace::create_for_node`], `hoptcp run
//! --pcap-node N`) does: there the analysis sees each segment once, as that
//! node's own TCP would.
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
use crate::mac::Standard;
use crate::wire::Frame;
use crate::wire::Packet;

/// The trace of one run: a pcapng file with interface `i` = node `i`, or
/// with node `only`'s interface alone.
pub struct PcapTrace {
    writer: PcapNgWriter,
    encoder: FrameEncoder,
    frames: u64,
    only: Option<u32>,
}

fn interface(i: u32) -> Interface {
    let [a, b, c, d] = ip_addr(i);
    let mac = mac_addr(i).map(|x| format!("{x:02x}")).join(":");
    Interface::ieee802_11_radiotap(format!("node {i}"), format!("{a}.{b}.{c}.{d} {mac}"), SNAPLEN)
}

impl PcapTrace {
    /// Create `path` with one 802.11 interface per node.
    pub fn create(path: &std::path::Path, nodes: u32, flows: Vec<FlowInfo>) -> std::io::Result<Self> {
        let writer = PcapNgWriter::create(path, (0..nodes).map(interface))?;
        Ok(PcapTrace { writer, encoder: FrameEncoder::new(flows), frames: 0, only: None })
    }

    /// Create `path` with node `node`'s interface alone (interface 0): the
    /// view in which Wireshark's TCP analysis sees each segment once, as
    /// that node's TCP would.
    pub fn create_for_node(path: &std::path::Path, node: u32, flows: Vec<FlowInfo>) -> std::io::Result<Self> {
        let writer = PcapNgWriter::create(path, [interface(node)])?;
        Ok(PcapTrace { writer, encoder: FrameEncoder::new(flows), frames: 0, only: Some(node) })
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
        let iface = match self.only {
            None => node,
            Some(k) if k == node => 0,
            Some(_) => return Ok(()),
        };
        let (bytes, orig_len) = self.encoder.encode(frame, rate_bps, standard, packet)?;
        self.writer.write_packet(iface, t, orig_len, bytes)?;
        self.frames += 1;
        Ok(())
    }

    /// Flush buffered records to the file.
    pub fn finish(self) -> std::io::Result<()> {
        self.writer.finish()
    }
}
