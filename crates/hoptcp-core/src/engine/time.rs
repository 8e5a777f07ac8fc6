//! Simulated time is an integer number of nanoseconds: no floating-point clock,
//! so event order never depends on rounding.

/// Nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_US: Time = 1_000;
pub const NS_PER_MS: Time = 1_000_000;
pub const NS_PER_S: Time = 1_000_000_000;

/// Seconds (as written in scenario files) to nanoseconds, rounded to nearest.
pub fn from_secs(s: f64) -> Time {
    (s * NS_PER_S as f64).round() as Time
}

/// Nanoseconds to seconds, for reports.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_S as f64
}

/// Round a duration up to whole microseconds, as 802.11 Duration/NAV fields do.
pub fn ceil_us(t: Time) -> Time {
    t.div_ceil(NS_PER_US) * NS_PER_US
}

/// Round a duration to the nearest microsecond, as ns-2's `usec()` does.
pub fn round_us(t: Time) -> Time {
    (t + NS_PER_US / 2) / NS_PER_US * NS_PER_US
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        assert_eq!(from_secs(1.5), 1_500_000_000);
        assert_eq!(from_secs(25e-6), 25_000);
        assert_eq!(to_secs(2_500_000_000), 2.5);
        assert_eq!(ceil_us(1), 1_000);
        assert_eq!(ceil_us(2_000), 2_000);
        assert_eq!(ceil_us(2_001), 3_000);
        assert_eq!(round_us(2_499), 2_000);
        assert_eq!(round_us(2_500), 3_000);
    }
}
