//! Python's `ssl` module as a peer (the original lab's Arm A), run by the script in
//! `collector/peers/python_arm.py`. The script is embedded in the binary and written to
//! the run's private folder, so the collector works from anywhere. It returns one record
//! per timed connection; the collector checks each one and computes every statistic.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use serde_json::{json, Value};
use shared::{CertKind, Mode, Protocol, Side};

use script::{overall_limit, run_script};

use super::{ArmKind, ArmSpec, Handshake, Unpinned};
use crate::arms::peer::files::PemFiles;
use crate::arms::peer::private_dir::PrivateDir;
use crate::arms::peer::process::Guarded;
use crate::arms::verify::check_side;
use crate::arms::{ArmRun, Plan};
pub use peer::{Peer, PYTHON};

mod peer;
mod script;

/// The script, as kept in the repository.
pub const SCRIPT: &str = include_str!("../../../peers/python_arm.py");

/// What one sample covers (written into the evidence).
pub const TIMED_WINDOW: &str = "Python ssl, in the order real clients do it: from before the client's socket is created (socket(), TCP_NODELAY, SO_LINGER {on, 0}, timeout); connect(); then SSLContext.wrap_socket, which builds the ClientHello and returns with the handshake complete; excludes the server's 1-byte app record (read after the timer; the resumed arms take the session only after it, so TLS 1.3 tickets have arrived) and close. Server: a thread in the same Python process, one SSLContext per arm for every connection; the GIL is released during OpenSSL calls";
/// The TCP arm's window.
pub const TCP_WINDOW: &str = "Python socket: from before the client's socket is created until connect() returns; excludes the server's byte and close. Server: a thread in the same Python process";

/// `python3`'s version and the OpenSSL its `ssl` module uses, e.g. `3.11.7 / OpenSSL 3.0.19 27 Jan 2026`.
pub fn version(program: &Path) -> Result<String> {
    let (out, _) = crate::arms::peer::ask_version(
        program,
        &[
            "-c",
            "import sys, ssl; print(sys.version.split()[0], '/', ssl.OPENSSL_VERSION)",
        ],
    )?;
    crate::arms::peer::first_line(program, &out)
}

/// The arms the script can run: TCP connect, then per cert TLS 1.3 / 1.2 full and resumed.
pub fn arms(certs: &[CertKind]) -> Vec<ArmSpec> {
    let mut out = vec![ArmSpec::TCP_CONNECT];
    for &cert in certs {
        for protocol in [Protocol::Tls13, Protocol::Tls12] {
            for (mode, resumption) in [
                (Mode::Full, None),
                (Mode::Resumed, Some(shared::Resumption::Ticket)),
            ] {
                out.push(ArmSpec::of(ArmKind::Unpinned(Unpinned {
                    protocol,
                    mode,
                    resumption,
                    cert: Some(cert),
                    // Python 3.11 cannot pin TLS 1.3 groups: OpenSSL's default order.
                    group: None,
                    early_data: false,
                })));
            }
        }
    }
    out
}

/// Runs the script for `specs` and returns each arm's measured run, plus the version
/// line it reported.
pub fn run(
    program: &Path,
    dir: &PrivateDir,
    files: &BTreeMap<CertKind, PemFiles>,
    specs: &[ArmSpec],
    plan: &Plan,
    io_timeout: Duration,
) -> Result<(String, Vec<ArmRun>)> {
    let script = dir.write("python_arm.py", SCRIPT.as_bytes())?;
    let input = json!({
        "io_timeout_s": io_timeout.as_secs_f64(),
        "samples": plan.samples,
        "rounds": plan.rounds,
        "warmup_per_chunk": plan.warmup_per_chunk,
        "seed": plan.seed,
        "client_cpus": crate::cpu::plan().client,
        "server_cpus": crate::cpu::plan().server,
        "certs": files.iter().map(|(k, f)| json!({
            "kind": k.as_str(), "cert": f.cert, "key": f.key, "ca": f.ca,
        })).collect::<Vec<_>>(),
        "arms": specs.iter().map(|s| json!({
            "protocol": s.protocol().as_str(), "mode": s.mode().as_str(),
            "cert": s.cert().map(CertKind::as_str),
        })).collect::<Vec<_>>(),
    });
    let mut cmd = Command::new(program);
    cmd.arg(&script)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let proc = Guarded::spawn(&mut cmd, "the Python arm script")?;
    let connections = specs.len() as u64 * (plan.samples + plan.warmup_per_chunk * plan.rounds);
    let limit = overall_limit(connections);
    let out = run_script(proc, &input.to_string(), limit)
        .with_context(|| format!("{connections} connections"))?;
    parse(&out, specs)
}

#[derive(Deserialize)]
struct Output {
    python: String,
    openssl: String,
    arms: Vec<OutArm>,
}

#[derive(Deserialize)]
struct OutArm {
    warmup_failed: u64,
    /// Wall time of the arm's timed chunks, summed (see `ArmRun::timed_wall`).
    #[serde(default)]
    timed_wall_s: f64,
    #[serde(default)]
    warmup_attempted: u64,
    connections: Vec<Vec<Value>>,
    /// Connection records per interleaved round, in order (absent in output of a script
    /// that did not report its rounds: then the arm's samples have no rounds).
    #[serde(default)]
    rounds: Option<Vec<usize>>,
}

/// The `round_group` of the Python script's arms: its own interleaved loop.
pub const ROUND_GROUP: &str = "peer-python";

/// Turns the script's JSON into one [`ArmRun`] per spec (same order), checking every
/// connection: a resumed arm must have `session_reused` on both ends, a full arm on
/// neither, and both ends must have negotiated the arm's protocol.
pub fn parse(text: &str, specs: &[ArmSpec]) -> Result<(String, Vec<ArmRun>)> {
    let out: Output =
        serde_json::from_str(text).context("the Python arm script's output is not its JSON")?;
    if out.arms.len() != specs.len() {
        bail!(
            "the Python arm script returned {} arms, expected {}",
            out.arms.len(),
            specs.len()
        );
    }
    let runs = specs
        .iter()
        .zip(out.arms)
        .map(|(spec, arm)| arm_run(*spec, arm))
        .collect::<Result<_>>()?;
    Ok((format!("Python {} / {}", out.python, out.openssl), runs))
}

fn arm_run(spec: ArmSpec, arm: OutArm) -> Result<ArmRun> {
    let mut run = ArmRun::new(spec, arm.connections.len() as u64);
    run.warmup_failed = arm.warmup_failed;
    run.warmup_attempted = arm.warmup_attempted;
    run.timed_wall = Duration::try_from_secs_f64(arm.timed_wall_s).unwrap_or_default();
    // Indices of the records that start a round.
    let mut starts = Vec::new();
    if let Some(rounds) = &arm.rounds {
        if rounds.iter().sum::<usize>() != arm.connections.len() {
            bail!(
                "the Python arm script's rounds add up to {} records, but it returned {}",
                rounds.iter().sum::<usize>(),
                arm.connections.len()
            );
        }
        let mut at = 0;
        for n in rounds {
            starts.push(at);
            at += n;
        }
    }
    let mut next_round = starts.iter().peekable();
    for (j, record) in arm.connections.iter().enumerate() {
        // Rounds may be empty: begin every round that starts at or before this record.
        while next_round.next_if(|&&s| s <= j).is_some() {
            run.begin_round(ROUND_GROUP);
        }
        run.attempted += 1;
        if record.first().and_then(Value::as_str) == Some("error") {
            run.failed += 1;
            let msg = record.get(1).and_then(Value::as_str).unwrap_or("unknown");
            run.first_failure.get_or_insert_with(|| msg.to_string());
            continue;
        }
        let us = |i: usize| record.get(i).and_then(Value::as_f64);
        let Some(elapsed) = us(0) else {
            bail!("a Python connection record without times: {record:?}");
        };
        run.record_sample(Duration::from_nanos((elapsed * 1000.0).round() as u64));
        if spec.protocol() == Protocol::Tcp {
            continue;
        }
        let text = |i: usize| record.get(i).and_then(Value::as_str).unwrap_or("?");
        let mut problems = Vec::new();
        for (side, reused, version) in [(Side::Client, 2, 4), (Side::Server, 3, 5)] {
            let h = Handshake::seen(
                match record.get(reused).and_then(Value::as_bool) {
                    Some(true) => rustls::HandshakeKind::Resumed,
                    _ => rustls::HandshakeKind::Full,
                },
                match text(version) {
                    "TLSv1.3" => Some(rustls::ProtocolVersion::TLSv1_3),
                    "TLSv1.2" => Some(rustls::ProtocolVersion::TLSv1_2),
                    _ => None,
                },
                None,
            );
            let name = if side == Side::Client {
                "client"
            } else {
                "server"
            };
            check_side(&spec, name, &h, &mut problems);
            run.count(side, &h);
        }
        problems.into_iter().for_each(|p| run.problem(p));
        // Python names the cipher, not the group (3.11 has no API for it).
        let label = format!("{} / {} / group not reported by Python", text(4), text(6));
        *run.negotiated.entry(label).or_default() += 1;
    }
    // Rounds that start after the last record (empty rounds at the end).
    next_round.for_each(|_| run.begin_round(ROUND_GROUP));
    run.negotiated
        .retain(|k, _| k.ends_with("not reported by Python"));
    Ok(run)
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::evidence::build_arm;

    /// Output of the script recorded on this machine (6 connections per arm, RSA-2048):
    /// `done-right` as shipped; `server-context-per-connection` from a copy whose server
    /// made a new SSLContext for every connection (the pitfall: it never resumes).
    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/data/python/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn done_right_resumes_every_connection_on_both_ends() {
        let specs = arms(&[CertKind::Rsa2048]);
        let (version, runs) = parse(&fixture("done-right"), &specs).unwrap();
        assert!(version.starts_with("Python 3.") && version.contains("OpenSSL"));
        for run in &runs {
            assert_eq!((run.attempted, run.failed, run.samples_us.len()), (6, 0, 6));
            assert!(run.problems.is_empty(), "{}: {:?}", run.spec, run.problems);
            let arm = build_arm(run);
            assert_eq!(arm.error, None);
            let resumed = if run.spec.mode() == Mode::Resumed {
                6
            } else {
                0
            };
            assert_eq!((arm.resumed.client, arm.resumed.server), (resumed, resumed));
        }
        let tls13 = &runs[1].negotiated;
        assert_eq!(tls13.values().sum::<u64>(), 6, "{tls13:?}");
        assert!(tls13.keys().all(|k| k.starts_with("TLSv1.3 / TLS_")));
    }

    #[test]
    fn a_server_context_per_connection_never_resumes_and_says_so() {
        let specs = arms(&[CertKind::Rsa2048]);
        let (_, runs) = parse(&fixture("server-context-per-connection"), &specs).unwrap();
        for run in runs.iter().filter(|r| r.spec.mode() == Mode::Resumed) {
            assert_eq!(
                run.problems
                    .get("client reported a full handshake, expected resumed"),
                Some(&6)
            );
            let arm = build_arm(run);
            assert_eq!((arm.resumed.client, arm.resumed.server), (0, 0));
            assert!(arm.error.unwrap().contains("6 of 6"), "{}", run.spec);
        }
        assert!(runs
            .iter()
            .filter(|r| r.spec.mode() != Mode::Resumed)
            .all(|r| r.problems.is_empty()));
    }

    #[test]
    fn failed_connections_are_counted_and_bad_output_is_refused() {
        let text = r#"{"python": "3.11.7", "openssl": "OpenSSL 3.0.19", "arms": [
            {"spec": {}, "warmup_failed": 1, "warmup_attempted": 3, "timed_wall_s": 0.25, "connections": [
                ["error", "ConnectionResetError: [Errno 104] Connection reset by peer"],
                [20.5, 60.0, null, null, null, null, null]]}]}"#;
        let (_, runs) = parse(text, &[ArmSpec::TCP_CONNECT]).unwrap();
        let r = &runs[0];
        assert_eq!((r.attempted, r.failed, r.warmup_failed), (2, 1, 1));
        assert_eq!(build_arm(r).warmup_attempted, Some(3));
        assert_eq!(r.samples_us, [20.5]);
        // One success in 0.25 s of timed chunks (the script's own wall clock).
        assert_eq!(build_arm(r).throughput_per_s, Some(4.0));
        assert!(r.first_failure.as_deref().unwrap().contains("reset"));
        assert!(
            r.samples_per_round.is_empty(),
            "no rounds reported, none made up"
        );
        let err = parse(text, &arms(&[CertKind::Rsa2048])).unwrap_err();
        assert!(
            err.to_string().contains("returned 1 arms, expected 5"),
            "{err}"
        );
        assert!(parse("Traceback ...", &[ArmSpec::TCP_CONNECT])
            .unwrap_err()
            .to_string()
            .contains("not its JSON"));
    }

    #[test]
    fn rounds_are_carried_per_successful_sample() {
        // Round 0: a success and a failure; round 1: none; round 2: two successes;
        // round 3: none (at the end).
        let ok = |us: f64| format!("[{us}, 60.0, null, null, null, null, null]");
        let text = format!(
            r#"{{"python": "3.11.7", "openssl": "OpenSSL 3.0.19", "arms": [
            {{"warmup_failed": 0, "rounds": [2, 0, 2, 0], "connections": [
                {}, ["error", "reset"], {}, {}]}}]}}"#,
            ok(20.0),
            ok(21.0),
            ok(22.0)
        );
        let (_, runs) = parse(&text, &[ArmSpec::TCP_CONNECT]).unwrap();
        let r = &runs[0];
        assert_eq!(r.samples_us, [20.0, 21.0, 22.0]);
        assert_eq!(r.samples_per_round, [1, 0, 2, 0]);
        assert_eq!(r.round_group.as_deref(), Some(ROUND_GROUP));
        let bad = text.replace("[2, 0, 2, 0]", "[2, 0, 1, 0]");
        let err = parse(&bad, &[ArmSpec::TCP_CONNECT]).unwrap_err();
        assert!(err.to_string().contains("add up to 3 records"), "{err}");
    }
}
