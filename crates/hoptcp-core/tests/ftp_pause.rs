//! An FTP application that pauses and resumes on the same TCP connection
//! (`pauses`, ElRakabawy et al. Figs. 13-14, after ns-2's `$ftp stop` /
//! `$ftp start`).

mod common;
use common::*;
use hoptcp_core::{run_scenario, RunOptions};

/// The one-line error a bad scenario gets.
fn run_err(toml: &str) -> String {
    match run_scenario(toml, &[], &RunOptions::default()) {
        Ok(_) => panic!("accepted: {toml}"),
        Err(e) => e.to_string(),
    }
}

fn scenario(pauses: &str) -> String {
    format!(
        "duration_s = 60\nseed = 2\n[topology]\nkind = \"chain\"\nhops = 3\nspacing_m = 200\n\
         [stats]\nthroughput_interval_s = 1.0\n\
         [[flows]]\nsrc = 0\ndst = 3\ntransport = \"tcp\"\napp = \"ftp\"\n{pauses}\n"
    )
}

#[test]
fn a_paused_ftp_sends_nothing_new_and_resumes_on_the_same_connection() {
    let r = run(&scenario("pauses = [[20.0, 30.0]]"), &[]);
    let free = run(&scenario(""), &[]);
    let series = &r.series.as_ref().expect("per-second series").flows["0"];
    let busy = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    // Within a second of the pause the outstanding window is delivered;
    // then nothing until the application resumes at 30 s.
    assert!(series[22..30].iter().all(|&g| g == 0.0), "{:?}", &series[18..32]);
    assert!(busy(&series[10..20]) > 100e3 && busy(&series[35..60]) > 100e3, "{series:?}");
    // The goodput lost is about the pause's share of the run.
    let lost = 1.0 - r.flows[0].goodput_bps / free.flows[0].goodput_bps;
    assert!((0.1..0.3).contains(&lost), "lost {lost} of the goodput to a 10 s pause in 60 s");
}

#[test]
fn pauses_are_checked() {
    for (pauses, why) in [
        ("pauses = [[30.0, 20.0]]", "must be [from, to]"),
        ("pauses = [[20.0, 30.0], [25.0, 40.0]]", "flows.0.pauses[1]"),
        ("pauses = [[20.0, 70.0]]", "before the flow ends"),
    ] {
        let err = run_err(&scenario(pauses));
        assert!(err.contains(why), "{pauses}: {err}");
    }
    let udp = "duration_s = 60\n[topology]\nkind = \"chain\"\nhops = 1\n[[flows]]\nsrc = 0\ndst = 1\n\
               transport = \"udp\"\napp = \"cbr\"\nrate_bps = 1e5\npauses = [[1.0, 2.0]]\n";
    assert!(run_err(udp).contains("FTP over TCP only"), "{}", run_err(udp));
}
