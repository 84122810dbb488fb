//! The run's options as the command line builds them: parsed once, typed, refused early.

use clap::Parser;

use super::*;
use crate::cli::{Cli, Command};

fn parse(args: &[&str]) -> Result<RunArgs, clap::Error> {
    let argv = ["collector", "run"].iter().chain(args);
    match Cli::try_parse_from(argv)?.command {
        Command::Run(a) => Ok(a),
        other => panic!("not a run: {other:?}"),
    }
}

fn build(args: &[&str]) -> RunOptions {
    RunOptions::build(parse(args).unwrap()).unwrap()
}

#[test]
fn a_bad_rtt_list_is_refused_by_the_parser_naming_the_flag() {
    let e = parse(&["--rtt", "0,fast"]).unwrap_err();
    assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
    let text = e.to_string();
    assert!(text.contains("--rtt"), "{text}");
    assert!(
        text.contains("`fast` is not a number of milliseconds"),
        "{text}"
    );
    let e = parse(&["--rtt", "20000ms"]).unwrap_err();
    assert!(e.to_string().contains("outside 0..=10000 ms"), "{e}");
}

#[test]
fn rtt_durations_are_typed_once_and_imply_request_mode() {
    let o = build(&["--rtt", "0,1.5,10ms", "--seed", "7"]);
    let rtt = o.rtt.as_ref().unwrap();
    assert_eq!(
        rtt.rtts,
        [0, 1500, 10_000].map(std::time::Duration::from_micros)
    );
    assert_eq!(rtt.text, "0,1.5,10ms");
    assert!(o.request && o.plan.request);
    assert!(!o.on_loopback());
    // Over an emulated path: fewer samples, and no phases in request mode.
    assert_eq!((o.plan.samples, o.warmup, o.plan.trace_every), (20, 4, 0));
    assert_eq!(o.plan.seed, 7);
    assert_eq!(o.open_loop.seed, 7, "the open loop is seeded from the plan");
}

#[test]
fn the_defaults_are_a_loopback_handshake_run() {
    let o = build(&[]);
    assert!(o.on_loopback() && !o.request && o.floor && !o.load_arms());
    assert_eq!(o.fault, Fault::None);
    assert_eq!(o.phases, PhaseRecording::On);
    assert_eq!((o.plan.samples, o.warmup, o.plan.rounds), (1000, 100, 10));
    assert_eq!(o.plan.trace_every, 4);
    assert_eq!(o.io_timeout, std::time::Duration::from_millis(5000));
    assert_eq!(o.certs, [CertKind::Rsa2048, CertKind::EcdsaP256]);
    assert_eq!(o.groups, [KxGroup::X25519, KxGroup::X25519Mlkem768]);
}

#[test]
fn bool_pairs_become_one_value() {
    assert_eq!(build(&["--break-resumption"]).fault, Fault::NoSessionStore);
    assert_eq!(build(&["--refuse-early-data"]).fault, Fault::NoEarlyData);
    assert!(parse(&["--break-resumption", "--refuse-early-data"]).is_err());
    let o = build(&["--no-phases", "--no-floor", "--quick"]);
    assert_eq!(o.phases, PhaseRecording::Off);
    assert!(!o.floor);
    assert_eq!(
        (o.plan.samples, o.plan.rounds, o.plan.trace_every),
        (100, 5, 0)
    );
}

#[test]
fn matrix_covers_every_cert_and_group() {
    let o = build(&["--matrix", "--certs", "rsa2048"]);
    assert_eq!(o.certs, CertKind::ALL);
    assert_eq!(o.groups, KxGroup::ALL);
}

#[test]
fn a_target_carries_its_token_and_ca() {
    let o = build(&[
        "--target",
        "127.0.0.1:7443",
        "--token",
        "t",
        "--ca",
        "ca.pem",
    ]);
    let t = o.target.as_ref().unwrap();
    assert_eq!((t.token.as_str(), t.ca.to_str()), ("t", Some("ca.pem")));
    assert!(!o.on_loopback());
    assert!(parse(&["--target", "127.0.0.1:7443", "--ca", "ca.pem"]).is_err());
}

#[test]
fn an_open_loop_rate_too_large_for_its_window_is_refused_when_built() {
    let args = parse(&["--open-loop-rates", "100000", "--open-loop-seconds", "20"]).unwrap();
    let e = RunOptions::build(args).unwrap_err().to_string();
    assert!(e.contains("--open-loop-rates 100000"), "{e}");
    let o = build(&["--open-loop-rates", "200,400", "--concurrency", "1,2"]);
    assert!(o.load_arms());
    assert_eq!(o.open_loop.rates, [200, 400]);
    assert_eq!(o.capacity.concurrency, [1, 2]);
}
