//! The sender's common machinery, with the default variant (NewReno).

use super::testutil::*;
use super::*;
use crate::engine::time::to_secs;
use crate::engine::NS_PER_S;

#[test]
fn setup_segment_then_initial_window() {
    let c = TcpConfig::default();
    let mut s = TcpSender::new(&c);
    assert!(s.poll_transmit(0).is_none(), "no data yet");
    s.add_data(0, u64::MAX);
    let first = drain(&mut s, 0);
    assert_eq!(first.len(), 1, "cwnd 1 for the setup segment");
    assert!(first[0].syn);
    assert_eq!(first[0].seq, 0);
    assert_eq!(first[0].ip_bytes(), 40);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.next_timer(), Some(3 * NS_PER_S), "initial RTO 3 s");
    let sent = ack_and_send(&mut s, 100 * MS, ack(0));
    assert_eq!(sent, vec![1, 2]);
    assert_eq!(s.cwnd(), 2.0);
    // The setup segment's RTT (10 ticks) was the first sample.
    assert_eq!(s.stats(100 * MS).rtt_samples, 1);
    assert_eq!(s.rto(), 300 * MS);
}

#[test]
fn without_setup_segment_data_starts_at_one() {
    let c = TcpConfig { syn: false, ..TcpConfig::default() };
    let mut s = TcpSender::new(&c);
    s.add_data(0, 5);
    let v = drain(&mut s, 0);
    assert_eq!(seqs(&v), vec![1, 2]);
    assert!(v.iter().all(|x| !x.syn && x.ip_bytes() == 1500));
}

#[test]
fn finite_data_stops_and_reports_done() {
    let c = TcpConfig::default();
    let mut s = TcpSender::new(&c);
    s.add_data(0, 3);
    drain(&mut s, 0);
    assert_eq!(ack_and_send(&mut s, 10 * MS, ack(0)), vec![1, 2]);
    assert_eq!(ack_and_send(&mut s, 20 * MS, ack(1)), vec![3]);
    assert_eq!(ack_and_send(&mut s, 20 * MS, ack(2)), Vec::<u64>::new());
    assert!(!s.all_acked());
    s.on_segment(30 * MS, &ack(3));
    assert!(s.all_acked());
    s.add_data(40 * MS, 1);
    assert_eq!(seqs(&drain(&mut s, 40 * MS)), vec![4]);
}

#[test]
fn slow_start_doubles_per_rtt() {
    let c = TcpConfig { initial_ssthresh: 1000, max_window: 1000, ..TcpConfig::default() };
    let mut s = established(&c, 10 * MS);
    let mut in_flight: Vec<u64> = vec![1, 2];
    let mut now = 10 * MS;
    for round in 0..5 {
        now += 10 * MS;
        let mut next = Vec::new();
        for &p in &in_flight {
            next.extend(ack_and_send(&mut s, now, ack(p)));
        }
        // Each ACK opens cwnd by one and releases two packets.
        assert_eq!(next.len(), 2 * in_flight.len(), "round {round}");
        assert_eq!(s.cwnd(), (2 * next.len()) as f64 / 2.0 + 0.0);
        in_flight = next;
    }
    assert_eq!(in_flight.len(), 64);
}

#[test]
fn congestion_avoidance_adds_one_per_window() {
    let c = TcpConfig { initial_ssthresh: 2, max_window: 1000, ..TcpConfig::default() };
    let mut s = established(&c, 10 * MS);
    assert_eq!(s.cwnd(), 2.0);
    let mut acks_at = [0u32; 12];
    let mut next_ack = 1;
    let mut now = 10 * MS;
    while s.cwnd() < 10.0 {
        now += MS;
        let w = s.cwnd();
        ack_and_send(&mut s, now, ack(next_ack));
        next_ack += 1;
        assert_eq!(s.cwnd(), w + 1.0 / w, "cwnd += 1/cwnd per ACK");
        acks_at[w.floor() as usize] += 1;
        let flight = s.max_sent().unwrap() - s.highest_ack().unwrap();
        assert_eq!(flight, s.cwnd().floor() as u64);
    }
    // About one window of ACKs per packet of growth.
    for (k, &n) in acks_at.iter().enumerate().take(10).skip(2) {
        assert!(n == k as u32 || n == k as u32 + 1, "{k}: {n}");
    }
}

#[test]
fn max_window_limits_flight_even_with_huge_cwnd() {
    let c = TcpConfig { max_window: 4, initial_ssthresh: 1000, ..TcpConfig::default() };
    let mut s = established(&c, 10 * MS);
    let mut now = 10 * MS;
    for next_ack in 1..=200 {
        now += MS;
        ack_and_send(&mut s, now, ack(next_ack));
        let flight = s.max_sent().unwrap() - s.highest_ack().unwrap();
        assert!(flight <= 4, "{flight} in flight");
    }
    assert!(s.cwnd() > 100.0, "cwnd keeps growing as in ns-2");
    assert_eq!(s.effective_window(), 4);
    assert_eq!(s.max_sent().unwrap() - s.highest_ack().unwrap(), 4);
}

#[test]
fn ack_for_unsent_data_and_data_segments_are_ignored() {
    let mut s = established(&TcpConfig::default(), 10 * MS);
    let before = s.cwnd();
    s.on_segment(20 * MS, &ack(50));
    let data = TcpSegment { seq: 1, payload_bytes: 1460, ..Default::default() };
    s.on_segment(20 * MS, &data);
    assert_eq!(s.cwnd(), before);
    assert_eq!(s.highest_ack(), Some(0));
}

#[test]
fn rto_fires_goes_back_and_halves() {
    let c = TcpConfig { initial_ssthresh: 1000, ..TcpConfig::default() };
    let mut s = established(&c, 100 * MS); // RTO 0.3 s
                                           // Grow to cwnd 6 with 1..4 acked; 5..10 in flight.
    let mut now = 100 * MS;
    for p in 1..=4 {
        now += 10 * MS;
        ack_and_send(&mut s, now, ack(p));
    }
    assert_eq!(s.cwnd(), 6.0);
    assert_eq!(s.max_sent(), Some(10));
    let deadline = s.next_timer().unwrap();
    let rto = s.rto();
    // A stale call does nothing.
    s.on_timer(deadline - 1);
    assert_eq!(s.cwnd(), 6.0);
    s.on_timer(deadline);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 3.0);
    assert_eq!(s.stats(deadline).timeouts, 1);
    // Go-back-N from the first unacknowledged packet.
    let v = drain(&mut s, deadline);
    assert_eq!(seqs(&v), vec![5]);
    assert_eq!(s.stats(deadline).retransmissions, 1);
    // Backed-off timer.
    assert_eq!(s.next_timer(), Some(deadline + 2 * rto));
    // ACK 5 releases 6 and 7 (slow start from 1), both retransmissions.
    assert_eq!(ack_and_send(&mut s, deadline + 50 * MS, ack(5)), vec![6, 7]);
    assert_eq!(s.stats(deadline).retransmissions, 3);
    // A receiver that had buffered 6..10 jumps the ACK forward.
    let sent = ack_and_send(&mut s, deadline + 60 * MS, ack(10));
    assert_eq!(sent, vec![11, 12, 13]);
}

#[test]
fn karn_no_sample_from_retransmission_and_backoff_persists() {
    let c = TcpConfig::default();
    let mut s = TcpSender::new(&c);
    s.add_data(0, u64::MAX);
    drain(&mut s, 0);
    // The setup segment is lost: timeout at 3 s, again at 3 + 6 s.
    s.on_timer(3 * NS_PER_S);
    assert_eq!(seqs(&drain(&mut s, 3 * NS_PER_S)), vec![0]);
    assert_eq!(s.next_timer(), Some(9 * NS_PER_S));
    assert_eq!(s.ssthresh(), 2.0, "ns-2: a lost setup segment sets ssthresh 2");
    // Its ACK comes back quickly: no RTT sample (retransmitted), and
    // the backoff stays: the re-armed timer is still 2 x 3 s.
    let t = 3 * NS_PER_S + 50 * MS;
    let sent = ack_and_send(&mut s, t, ack(0));
    assert_eq!(s.stats(t).rtt_samples, 0);
    assert_eq!(s.next_timer(), Some(t + 6 * NS_PER_S));
    // ns-2 bugfix_ss_: the initial window drops to 1.
    assert_eq!(sent, vec![1]);
    // Packet 1 is new, hence timed: its ACK gives the first sample and
    // ends the backoff.
    let t2 = t + 120 * MS;
    s.on_segment(t2, &ack(1));
    assert_eq!(s.stats(t2).rtt_samples, 1);
    assert_eq!(s.rto(), 360 * MS); // 12 ticks: 12 + 4*6
    assert_eq!(s.next_timer(), Some(t2 + 360 * MS));
}

#[test]
fn idle_expiry_restarts_from_one_packet() {
    let c = TcpConfig { initial_ssthresh: 1000, ..TcpConfig::default() };
    let mut s = TcpSender::new(&c);
    s.add_data(0, 6);
    drain(&mut s, 0);
    let mut now = 100 * MS;
    ack_and_send(&mut s, now, ack(0));
    for p in 1..=6 {
        now += 10 * MS;
        ack_and_send(&mut s, now, ack(p));
    }
    assert!(s.all_acked());
    assert_eq!(s.cwnd(), 8.0);
    // The timer stays armed after the last ACK (ns-2 timerfix_).
    let d = s.next_timer().expect("armed");
    s.on_timer(d);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 1000.0, "ssthresh kept");
    assert_eq!(s.stats(d).timeouts, 0, "not a loss");
    assert_eq!(s.next_timer(), None);
    s.add_data(d + NS_PER_S, 5);
    assert_eq!(seqs(&drain(&mut s, d + NS_PER_S)), vec![7]);
    assert!(s.next_timer().is_some());
}

#[test]
fn window_stats_follow_cwnd() {
    let c = TcpConfig { initial_ssthresh: 1000, max_window: 4, ..TcpConfig::default() };
    let mut s = TcpSender::new(&c);
    s.add_data(0, u64::MAX);
    drain(&mut s, 0); // cwnd 1 from t=0
    ack_and_send(&mut s, NS_PER_S, ack(0)); // cwnd 2 from 1 s
    ack_and_send(&mut s, 3 * NS_PER_S, ack(1)); // 3 from 3 s
    ack_and_send(&mut s, 3 * NS_PER_S, ack(2)); // 4 from 3 s
    ack_and_send(&mut s, 4 * NS_PER_S, ack(3)); // 5, counted as 4
    let st = s.stats(6 * NS_PER_S);
    // 1*1 + 2*2 + 4*3 = 17 over 6 s
    assert!((st.avg_window - 17.0 / 6.0).abs() < 1e-9, "{}", st.avg_window);
    assert_eq!(st.window_hist, vec![0.0, 1.0, 2.0, 0.0, 3.0]);
    assert_eq!(st.final_cwnd, 5.0);
    // Nothing inflated the window: the traced average is the same.
    assert!((st.avg_window_traced - st.avg_window).abs() < 1e-12);
}

#[test]
fn traced_window_average_excludes_fast_recovery_inflation() {
    let c = TcpConfig { limited_transmit: false, ..TcpConfig::default() };
    let mut s = at_window_8(&c); // cwnd 8 since 106 ms
    let t = 200 * MS;
    for _ in 0..3 {
        ack_and_send(&mut s, t, ack(6)); // third dupack: ssthresh 4, cwnd 4 + dupwnd 3
    }
    assert_eq!(s.cwnd(), 7.0);
    for _ in 0..4 {
        ack_and_send(&mut s, t, ack(6)); // dupwnd 7: the usable window is 11
    }
    assert_eq!(s.cwnd(), 11.0);
    let end = t + NS_PER_S;
    let st = s.stats(end);
    let before = s.core.wstats.mean(t) * to_secs(t); // the same for both up to t
    let span = to_secs(end);
    assert!((st.avg_window - (before + 11.0) / span).abs() < 1e-9, "{}", st.avg_window);
    assert!((st.avg_window_traced - (before + 4.0) / span).abs() < 1e-9, "{}", st.avg_window_traced);
}
