//! A pcapng file writer: a section header, one interface description per
//! interface (any link type), then enhanced packet blocks with nanosecond
//! timestamps. Knows nothing about what the packets contain.

use crate::engine::Time;
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::PcapNgWriter as Inner;
use pcap_file::DataLink;
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Duration;

/// One capture interface of the file.
#[derive(Clone, Debug)]
pub struct Interface {
    pub name: String,
    pub description: String,
    pub link_type: DataLink,
    pub snaplen: u32,
}

impl Interface {
    /// A monitor-mode 802.11 interface (radiotap headers).
    pub fn ieee802_11_radiotap(name: String, description: String, snaplen: u32) -> Self {
        Interface { name, description, link_type: DataLink::IEEE802_11_RADIOTAP, snaplen }
    }
}

pub struct PcapNgWriter {
    inner: Inner<BufWriter<File>>,
    interfaces: u32,
}

impl PcapNgWriter {
    /// Create `path` and describe `interfaces` (ids 0, 1, ... in order).
    pub fn create(path: &std::path::Path, interfaces: impl IntoIterator<Item = Interface>) -> std::io::Result<Self> {
        let file = BufWriter::with_capacity(1 << 16, File::create(path)?);
        let mut inner = Inner::new(file).map_err(io_error)?;
        let mut n = 0;
        for i in interfaces {
            let idb = InterfaceDescriptionBlock {
                linktype: i.link_type,
                snaplen: i.snaplen,
                options: vec![
                    InterfaceDescriptionOption::IfName(Cow::Owned(i.name)),
                    InterfaceDescriptionOption::IfDescription(Cow::Owned(i.description)),
                    InterfaceDescriptionOption::IfTsResol(9), // timestamps in nanoseconds
                ],
            };
            inner.write_pcapng_block(idb).map_err(io_error)?;
            n += 1;
        }
        Ok(PcapNgWriter { inner, interfaces: n })
    }

    /// One packet captured on `interface` at `t` (ns): `data` as captured
    /// (at most the snap length), `orig_len` as it was on the medium.
    pub fn write_packet(&mut self, interface: u32, t: Time, orig_len: u32, data: &[u8]) -> std::io::Result<()> {
        debug_assert!(interface < self.interfaces);
        let epb = EnhancedPacketBlock {
            interface_id: interface,
            timestamp: Duration::from_nanos(t),
            original_len: orig_len.max(data.len() as u32),
            data: Cow::Borrowed(data),
            options: Vec::new(),
        };
        self.inner.write_pcapng_block(epb).map_err(io_error)?;
        Ok(())
    }

    /// Flush buffered blocks to the file.
    pub fn finish(self) -> std::io::Result<()> {
        self.inner.into_inner().flush()
    }
}

/// The crate's error as an I/O error: a failed write keeps the system's own
/// words ("No space left on device"), not the crate's generic "Error reading bytes".
fn io_error(e: pcap_file::PcapError) -> std::io::Error {
    match e {
        pcap_file::PcapError::IoError(io) => io,
        other => std::io::Error::other(other),
    }
}
