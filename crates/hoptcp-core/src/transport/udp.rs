//! UDP: no state beyond a sequence number; 8-byte header plus the 20-byte
//! IP header.

/// UDP + IP header bytes added to every payload.
pub const UDP_IP_HEADER_BYTES: u32 = 28;
