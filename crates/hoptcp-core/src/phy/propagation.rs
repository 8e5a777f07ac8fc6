//! Two-ray ground propagation, as ns-2's `Propagation/TwoRayGround`: Friis free
//! space below the crossover distance, `Pt·Gt·Gr·ht²·hr²/(d⁴·L)` beyond it.

/// ns-2 uses 3e8 m/s both for the wavelength and for propagation delays.
pub const SPEED_OF_LIGHT: f64 = 3.0e8;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoRayGround {
    /// Transmit power (W).
    pub pt_w: f64,
    pub gt: f64,
    pub gr: f64,
    /// Antenna heights (m).
    pub ht_m: f64,
    pub hr_m: f64,
    /// System loss (>= 1).
    pub loss: f64,
    pub freq_hz: f64,
}

impl Default for TwoRayGround {
    /// ns-2's defaults (914 MHz Lucent WaveLAN).
    fn default() -> Self {
        TwoRayGround { pt_w: 0.281_838_15, gt: 1.0, gr: 1.0, ht_m: 1.5, hr_m: 1.5, loss: 1.0, freq_hz: 914e6 }
    }
}

impl TwoRayGround {
    pub fn wavelength_m(&self) -> f64 {
        SPEED_OF_LIGHT / self.freq_hz
    }

    /// Distance beyond which the two-ray formula applies.
    pub fn crossover_m(&self) -> f64 {
        4.0 * std::f64::consts::PI * self.ht_m * self.hr_m / self.wavelength_m()
    }

    /// Received power (W) at distance `d` metres.
    pub fn rx_power(&self, d: f64) -> f64 {
        if d <= 0.0 {
            return self.pt_w;
        }
        if d < self.crossover_m() {
            let l = self.wavelength_m();
            let m = (4.0 * std::f64::consts::PI * d).powi(2);
            self.pt_w * self.gt * self.gr * l * l / (m * self.loss)
        } else {
            self.pt_w * self.gt * self.gr * (self.hr_m * self.hr_m * self.ht_m * self.ht_m)
                / (d * d * d * d * self.loss)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_ns2_thresholds() {
        let m = TwoRayGround::default();
        // ns-2's RXThresh_ (250 m) and CSThresh_ (550 m) for these defaults.
        let rx = m.rx_power(250.0);
        let cs = m.rx_power(550.0);
        assert!((rx / 3.652e-10 - 1.0).abs() < 1e-3, "rx {rx}");
        assert!((cs / 1.559e-11 - 1.0).abs() < 1e-3, "cs {cs}");
        assert!((m.crossover_m() - 86.14).abs() < 0.01);
    }

    #[test]
    fn power_falls_with_distance_and_is_continuous_enough() {
        let m = TwoRayGround::default();
        let mut last = f64::INFINITY;
        for d in (1..2000).map(|i| i as f64) {
            let p = m.rx_power(d);
            assert!(p < last);
            last = p;
        }
    }
}
