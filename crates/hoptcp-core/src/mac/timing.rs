//! PHY timing sets: slot, SIFS, DIFS, EIFS, contention windows and frame
//! durations for DSSS (802.11b, long preamble, as ns-2), OFDM (802.11a),
//! ERP (802.11g: ERP-OFDM with the 6 µs signal extension, ERP-DSSS/CCK),
//! and ns-2's way of timing "802.11g" (DSSS PLCP before every frame at any
//! data rate, with 802.11b MAC parameters). Every constant is in
//! docs/model.md with the clause it comes from.

use crate::engine::{Time, NS_PER_US};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Standard {
    /// DSSS/HR-DSSS (802.11 / 802.11b) as ns-2 times it: long PLCP
    /// preamble and header (192 µs at 1 Mb/s), then the MPDU at the rate,
    /// to the nanosecond: 1, 2, 5.5, 11 Mb/s.
    Dsss,
    /// OFDM (802.11a): 6, 9, 12, 18, 24, 36, 48, 54 Mb/s.
    Ofdm,
    /// ERP (802.11g) in a network of ERP stations only: short slot (9 µs),
    /// SIFS 10 µs, CWmin 15; ERP-OFDM frames are 802.11a frames followed by
    /// the 6 µs signal extension; ERP-DSSS/CCK frames (1, 2, 5.5, 11 Mb/s)
    /// keep the long preamble and round the PSDU up to whole µs.
    Erp,
    /// "802.11g" as ns-2 of the papers' era timed `dataRate_ 54Mb`: the
    /// DSSS PLCP (192 µs at 1 Mb/s) before every frame at any rate, and
    /// 802.11b's slot, SIFS, CWmin and EIFS.
    Ns2G,
}

/// 802.11b/g DSSS and CCK rates (Mb/s).
const DSSS_RATES: [f64; 4] = [1.0, 2.0, 5.5, 11.0];
/// 802.11a/g OFDM rates (Mb/s).
const OFDM_RATES: [f64; 8] = [6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0];
/// ERP supports both sets (sorted).
const ERP_RATES: [f64; 12] = [1.0, 2.0, 5.5, 6.0, 9.0, 11.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0];

/// Long PLCP preamble (144 bits) + PLCP header (48 bits) at 1 Mb/s.
const DSSS_PLCP: Time = 192 * NS_PER_US;
/// OFDM PLCP preamble (16 µs) + SIGNAL (4 µs).
const OFDM_PLCP: Time = 20 * NS_PER_US;
/// 802.11g aSignalExtension after every ERP-OFDM frame.
pub const SIGNAL_EXTENSION: Time = 6 * NS_PER_US;

impl Standard {
    pub fn rates_mbps(self) -> &'static [f64] {
        match self {
            Standard::Dsss => &DSSS_RATES,
            Standard::Ofdm => &OFDM_RATES,
            Standard::Erp | Standard::Ns2G => &ERP_RATES,
        }
    }

    /// Default (data, basic) rates in Mb/s: 2/1 for DSSS (as Fu and Lee),
    /// 54/6 for OFDM and ERP, 54/1 for ns-2's 802.11g (ns-2's `basicRate_`
    /// default is 1 Mb/s).
    pub fn default_rates_mbps(self) -> (f64, f64) {
        match self {
            Standard::Dsss => (2.0, 1.0),
            Standard::Ofdm | Standard::Erp => (54.0, 6.0),
            Standard::Ns2G => (54.0, 1.0),
        }
    }

    /// (slot, SIFS) in µs and (CWmin, CWmax).
    fn mac_constants(self) -> ((u64, u64), (u32, u32)) {
        match self {
            Standard::Dsss | Standard::Ns2G => ((20, 10), (31, 1023)),
            Standard::Ofdm => ((9, 16), (15, 1023)),
            Standard::Erp => ((9, 10), (15, 1023)),
        }
    }

    /// Default contention window bounds (CWmin, CWmax).
    pub fn cw_bounds(self) -> (u32, u32) {
        self.mac_constants().1
    }
}

fn is_ofdm_rate(rate_bps: f64) -> bool {
    OFDM_RATES.iter().any(|r| (r * 1e6 - rate_bps).abs() < 1.0)
}

/// DSSS PLCP + MPDU at `rate_bps`, to the nanosecond (ns-2's txtime()).
fn dsss_exact(bytes: u32, rate_bps: f64) -> Time {
    DSSS_PLCP + ((bytes as f64 * 8.0) / rate_bps * 1e9).round() as Time
}

/// OFDM PLCP, then 4 µs symbols carrying SERVICE (16 bits) + MPDU + tail (6 bits).
fn ofdm(bytes: u32, rate_bps: f64) -> Time {
    let ndbps = (rate_bps / 1e6 * 4.0).round() as u64;
    let bits = 16 + 8 * bytes as u64 + 6;
    OFDM_PLCP + 4 * bits.div_ceil(ndbps) * NS_PER_US
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
        let ((slot, sifs), (cw_min, cw_max)) = standard.mac_constants();
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
        // EIFS = SIFS + DIFS + an ACK at the lowest mandatory rate: 1 Mb/s
        // DSSS for 802.11b and ERP (and ns-2's PLCPDataRate), 6 Mb/s for 802.11a.
        let lowest = match standard {
            Standard::Ofdm => 6e6,
            Standard::Dsss | Standard::Erp | Standard::Ns2G => 1e6,
        };
        t.eifs = t.sifs + t.difs + t.airtime(14, lowest);
        t
    }

    /// On-air time of a MAC frame of `bytes` bytes sent at `rate_bps`.
    pub fn airtime(&self, bytes: u32, rate_bps: f64) -> Time {
        match self.standard {
            Standard::Dsss | Standard::Ns2G => dsss_exact(bytes, rate_bps),
            Standard::Ofdm => ofdm(bytes, rate_bps),
            Standard::Erp if is_ofdm_rate(rate_bps) => ofdm(bytes, rate_bps) + SIGNAL_EXTENSION,
            // ERP-DSSS/CCK: the PLCP LENGTH field is whole µs, rounded up.
            Standard::Erp => {
                let us = (bytes as f64 * 8.0 / (rate_bps / 1e6)).ceil() as Time;
                DSSS_PLCP + us * NS_PER_US
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
    fn dsss_11_mbps_is_ns2s_exact_time() {
        // ns-2 (and the papers) at 11 Mb/s: long preamble at 1 Mb/s, then
        // 1534 B × 8 / 11 Mb/s = 1115.636 µs, not rounded to whole µs.
        let t = Timing::new(Standard::Dsss, 11.0, 1.0);
        assert_eq!(t.data_airtime(1534), 192_000 + 1_115_636);
        assert_eq!(t.data_airtime(74), 192_000 + 53_818); // a TCP ACK: 40 + 34 B
        assert_eq!(t.basic_airtime(14), 304_000);
        assert_eq!((t.slot, t.sifs, t.difs, t.eifs), (20_000, 10_000, 50_000, 364_000));
        assert_eq!((t.cw_min, t.cw_max), (31, 1023));
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

    #[test]
    fn erp_ofdm_frames_carry_the_signal_extension() {
        let t = Timing::new(Standard::Erp, 54.0, 6.0);
        // Short slot, 2.4 GHz SIFS: DIFS = 10 + 2×9 = 28 µs; CWmin 15.
        assert_eq!((t.slot, t.sifs, t.difs), (9_000, 10_000, 28_000));
        assert_eq!((t.cw_min, t.cw_max), (15, 1023));
        // 1534 B at 54 Mb/s: 16 + 12272 + 6 = 12294 bits, 57 symbols of
        // 216 bits: 20 + 228 + 6 = 254 µs.
        assert_eq!(t.data_airtime(1534), 254_000);
        // ACK/CTS at 6 Mb/s: 134 bits in 6 symbols of 24: 20 + 24 + 6 = 50 µs;
        // RTS: 182 bits in 8 symbols: 20 + 32 + 6 = 58 µs.
        assert_eq!(t.basic_airtime(14), 50_000);
        assert_eq!(t.basic_airtime(20), 58_000);
        // A 74-byte TCP ACK at 54 Mb/s: 614 bits in 3 symbols: 20 + 12 + 6 = 38 µs.
        assert_eq!(t.data_airtime(74), 38_000);
        // EIFS: ACK at the lowest mandatory rate, 1 Mb/s DSSS (304 µs):
        // 10 + 28 + 304 = 342 µs.
        assert_eq!(t.eifs, 342_000);
        // The SIFS after an ERP-OFDM frame's last symbol is 10 + 6 = 16 µs,
        // as in 802.11a.
        let a = Timing::new(Standard::Ofdm, 54.0, 6.0);
        assert_eq!(t.data_airtime(1534) + t.sifs, a.data_airtime(1534) + a.sifs);
    }

    #[test]
    fn erp_dsss_rates_round_the_psdu_up_to_whole_microseconds() {
        let t = Timing::new(Standard::Erp, 11.0, 1.0);
        // 1534 B at 11 Mb/s: 1115.64 µs → 1116 µs after the 192 µs PLCP.
        assert_eq!(t.data_airtime(1534), 192_000 + 1_116_000);
        assert_eq!(t.basic_airtime(14), 304_000); // no signal extension
        let t = Timing::new(Standard::Erp, 5.5, 2.0);
        assert_eq!(t.data_airtime(100), 192_000 + 146_000); // 145.45 → 146 µs
        assert_eq!(t.basic_airtime(14), 192_000 + 56_000);
    }

    #[test]
    fn ns2_g_uses_the_dsss_plcp_at_every_rate() {
        let t = Timing::new(Standard::Ns2G, 54.0, 1.0);
        assert_eq!((t.slot, t.sifs, t.difs, t.eifs), (20_000, 10_000, 50_000, 364_000));
        assert_eq!((t.cw_min, t.cw_max), (31, 1023));
        // 1534 B × 8 / 54 Mb/s = 227.259 µs after the 192 µs PLCP.
        assert_eq!(t.data_airtime(1534), 192_000 + 227_259);
        assert_eq!(t.basic_airtime(20), 352_000);
        // The same frame with ERP timing is 254 µs: the DSSS preamble makes a
        // 54 Mb/s DATA frame 65 % longer.
        let erp = Timing::new(Standard::Erp, 54.0, 6.0);
        assert!(t.data_airtime(1534) as f64 / erp.data_airtime(1534) as f64 > 1.64);
    }

    #[test]
    fn rate_lists_and_defaults() {
        assert_eq!(Standard::Dsss.rates_mbps(), &[1.0, 2.0, 5.5, 11.0]);
        assert!(Standard::Erp.rates_mbps().contains(&5.5) && Standard::Erp.rates_mbps().contains(&54.0));
        assert_eq!(Standard::Ns2G.rates_mbps(), Standard::Erp.rates_mbps());
        assert_eq!(Standard::Ns2G.default_rates_mbps(), (54.0, 1.0));
        assert_eq!(Standard::Erp.default_rates_mbps(), (54.0, 6.0));
        assert_eq!(Standard::Dsss.cw_bounds(), (31, 1023));
        assert_eq!(Standard::Erp.cw_bounds(), (15, 1023));
        let names: Vec<String> = [Standard::Dsss, Standard::Ofdm, Standard::Erp, Standard::Ns2G]
            .iter()
            .map(|s| serde_json::to_string(s).unwrap())
            .collect();
        assert_eq!(names, ["\"dsss\"", "\"ofdm\"", "\"erp\"", "\"ns2_g\""]);
    }
}
