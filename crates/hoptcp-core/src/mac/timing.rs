//! PHY timing sets: slot, SIFS, DIFS, EIFS, contention windows and frame
//! durations for DSSS (802.11b, long preamble, as ns-2) and OFDM (802.11a).

use crate::engine::{Time, NS_PER_US};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standard {
    /// DSSS/HR-DSSS (802.11 / 802.11b), long PLCP preamble: 1, 2, 5.5, 11 Mb/s.
    Dsss,
    /// OFDM (802.11a): 6, 9, 12, 18, 24, 36, 48, 54 Mb/s.
    Ofdm,
}

impl Standard {
    pub fn rates_mbps(self) -> &'static [f64] {
        match self {
            Standard::Dsss => &[1.0, 2.0, 5.5, 11.0],
            Standard::Ofdm => &[6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    pub standard: Standard,
    pub slot: Time,
    pub sifs: Time,
    pub difs: Time,
    pub eifs: Time,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Maximum propagation delay allowed in each direction by timeouts.
    pub max_prop: Time,
    pub data_rate_bps: f64,
    pub basic_rate_bps: f64,
}

impl Timing {
    pub fn new(standard: Standard, data_rate_mbps: f64, basic_rate_mbps: f64) -> Self {
        let (slot, sifs, cw_min, cw_max) = match standard {
            Standard::Dsss => (20, 10, 31, 1023),
            Standard::Ofdm => (9, 16, 15, 1023),
        };
        let mut t = Timing {
            standard,
            slot: slot * NS_PER_US,
            sifs: sifs * NS_PER_US,
            difs: (sifs + 2 * slot) * NS_PER_US,
            eifs: 0,
            cw_min,
            cw_max,
            max_prop: 2 * NS_PER_US,
            data_rate_bps: data_rate_mbps * 1e6,
            basic_rate_bps: basic_rate_mbps * 1e6,
        };
        // EIFS = SIFS + DIFS + an ACK at the lowest (PLCP) rate.
        let lowest = match standard {
            Standard::Dsss => 1e6,
            Standard::Ofdm => 6e6,
        };
        t.eifs = t.sifs + t.difs + t.airtime(14, lowest);
        t
    }

    /// On-air time of a MAC frame of `bytes` bytes sent at `rate_bps`.
    pub fn airtime(&self, bytes: u32, rate_bps: f64) -> Time {
        match self.standard {
            // 144-bit preamble + 48-bit PLCP header at 1 Mb/s, then the MPDU.
            Standard::Dsss => 192 * NS_PER_US + ((bytes as f64 * 8.0) / rate_bps * 1e9).round() as Time,
            // 16 µs preamble + 4 µs SIGNAL, then 4 µs symbols carrying
            // SERVICE (16 bits) + MPDU + tail (6 bits).
            Standard::Ofdm => {
                let ndbps = (rate_bps / 1e6 * 4.0).round() as u64;
                let bits = 16 + 8 * bytes as u64 + 6;
                (20 + 4 * bits.div_ceil(ndbps)) * NS_PER_US
            }
        }
    }

    pub fn data_airtime(&self, bytes: u32) -> Time {
        self.airtime(bytes, self.data_rate_bps)
    }

    pub fn basic_airtime(&self, bytes: u32) -> Time {
        self.airtime(bytes, self.basic_rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsss_matches_ns2() {
        let t = Timing::new(Standard::Dsss, 2.0, 1.0);
        assert_eq!(t.difs, 50_000);
        assert_eq!(t.eifs, 364_000);
        assert_eq!(t.basic_airtime(20), 352_000); // RTS
        assert_eq!(t.basic_airtime(14), 304_000); // CTS/ACK
        assert_eq!(t.data_airtime(1500 + 34), 192_000 + 6_136_000);
    }

    #[test]
    fn ofdm_matches_80211a() {
        let t = Timing::new(Standard::Ofdm, 54.0, 6.0);
        assert_eq!(t.slot, 9_000);
        assert_eq!(t.difs, 34_000);
        // ACK at 6 Mb/s: 20 + 4*ceil(134/24) = 44 µs.
        assert_eq!(t.basic_airtime(14), 44_000);
        assert_eq!(t.eifs, (16 + 34 + 44) * 1000);
        // 1536-byte MPDU at 54 Mb/s: 20 + 4*ceil(12310/216) = 248 µs.
        assert_eq!(t.data_airtime(1536), 248_000);
    }
}
