//! Runs into one folder, argument bounds and signals: the collector binary end to end.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use e2e::{collector, scratch};
use shared::{Evidence, ResultsIndex};

const QUICK: [&str; 6] = [
    "run",
    "--quick",
    "--no-peers",
    "--no-floor",
    "--arms",
    "tcp",
];

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn two_concurrent_runs_into_one_folder_both_stay_listed() {
    let dir = scratch("concurrent-runs");
    let start = || {
        collector()
            .args(QUICK)
            .arg("--out")
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("collector starts")
    };
    let (a, b) = (start(), start());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    }
    let index: ResultsIndex =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = index.runs.iter().map(|e| e.file.clone()).collect();
    listed.sort();
    assert_eq!(on_disk.len(), 2, "two evidence files: {on_disk:?}");
    assert_eq!(listed, on_disk, "both runs are listed");
    for (file, entry) in on_disk.iter().zip(&index.runs) {
        let e = Evidence::from_json(&std::fs::read_to_string(dir.join(file)).unwrap())
            .unwrap_or_else(|err| panic!("{file}: {err}"));
        assert!(e.run.complete);
        assert!(
            index
                .runs
                .iter()
                .any(|i| i.run_id == e.run.id && &i.file == file),
            "{entry:?}"
        );
    }
}

#[test]
fn a_foreign_index_is_set_aside_with_a_message() {
    let dir = scratch("foreign-index");
    std::fs::write(dir.join("index.json"), b"\xff\xfe not an index").unwrap();
    let out = collector()
        .args(QUICK)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("index.json was unreadable (not UTF-8"),
        "{stderr}"
    );
    let aside: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("index.json.unreadable-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(
        std::fs::read(dir.join(&aside[0])).unwrap(),
        b"\xff\xfe not an index"
    );
    let index: ResultsIndex =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    assert_eq!(index.runs.len(), 1);
}

#[test]
fn out_of_range_numbers_exit_2_naming_the_flag() {
    let dir = scratch("bad-args");
    let cases: [(&[&str], &str); 9] = [
        (&["run", "--io-timeout-ms", "0"], "--io-timeout-ms"),
        (&["run", "--samples", "18446744073709551615"], "--samples"),
        (&["run", "--samples", "1000001"], "--samples"),
        (&["run", "--warmup", "99999999999"], "--warmup"),
        (&["run", "--bootstrap", "100001"], "--bootstrap"),
        (&["run", "--capacity-seconds", "3601"], "--capacity-seconds"),
        (&["run", "--rounds", "10001"], "--rounds"),
        (
            &["compare", "a.json", "b.json", "--bootstrap", "4000000000"],
            "--bootstrap",
        ),
        (&["serve", "--io-timeout-ms", "0"], "--io-timeout-ms"),
    ];
    for (args, flag) in cases {
        let mut cmd = collector();
        cmd.args(args);
        if args[0] == "run" {
            cmd.arg("--out").arg(&dir);
        }
        let out = cmd.output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains("not in"),
            "{args:?} names the flag and the range: {stderr}"
        );
        let listed = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(listed, 0, "{args:?}: nothing was written");
    }
}

fn kill(pid: u32, signal: &str) {
    let sent = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {signal} failed");
}

/// Starts the collector with stderr piped; returns it and a receiver of its stderr lines.
fn spawn_watched(cmd: &mut Command) -> (Child, mpsc::Receiver<String>) {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("collector starts");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// Waits (up to a minute) for a stderr line containing `needle`; returns the lines so far.
fn wait_for(rx: &mpsc::Receiver<String>, needle: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(needle);
                seen.push(line);
                if found {
                    return seen;
                }
            }
            Err(_) => break,
        }
    }
    panic!("no stderr line with `{needle}`; got {seen:#?}");
}

/// Waits for the child and the rest of its stderr.
fn finish(child: Child, rx: &mpsc::Receiver<String>) -> (Option<i32>, Vec<String>) {
    let status = child.wait_with_output().unwrap().status;
    let mut rest = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
        rest.push(line);
    }
    (status.code(), rest)
}

fn partial_evidence(dir: &std::path::Path) -> Evidence {
    let e = e2e::read_evidence(dir);
    assert!(!e.run.complete, "complete: false after a signal");
    e
}

#[test]
fn sigterm_mid_run_saves_partial_evidence_and_removes_the_key_folder() {
    let base = scratch("sigterm");
    let tmp = base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let results = base.join("results");
    let (child, rx) = spawn_watched(
        collector()
            .args(["run", "--quick", "--no-floor", "--certs", "rsa2048"])
            .args(["--arms", "s_time-", "--peer-seconds", "60", "--out"])
            .arg(&results)
            .env("TMPDIR", &tmp),
    );
    // The s_time arms run with their keys in the private folder under TMPDIR.
    wait_for(&rx, "openssl s_time");
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        1,
        "the key folder exists"
    );
    kill(child.id(), "-TERM");
    let (code, rest) = finish(child, &rx);
    assert_eq!(code, Some(143), "stderr: {rest:#?}");
    assert!(
        rest.iter().any(|l| l.contains("SIGTERM received")),
        "{rest:#?}"
    );
    let e = partial_evidence(&results);
    assert!(e.run.settings.extra["interrupted"].starts_with("SIGTERM after"));
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "no key folder left in TMPDIR"
    );
}

#[test]
fn sighup_stops_a_run_like_ctrl_c() {
    let dir = scratch("sighup");
    let (child, rx) = spawn_watched(
        collector()
            .args([
                "run",
                "--no-peers",
                "--no-floor",
                "--no-phases",
                "--arms",
                "tcp",
            ])
            .args(["--samples", "1000000", "--out"])
            .arg(&dir),
    );
    wait_for(&rx, "timed connections");
    kill(child.id(), "-HUP");
    let (code, rest) = finish(child, &rx);
    assert_eq!(code, Some(129), "stderr: {rest:#?}");
    let e = partial_evidence(&dir);
    assert!(e.run.settings.extra["interrupted"].starts_with("SIGHUP after"));
    assert!(e.arms.iter().all(|a| a.attempted < 1_000_000));
}

#[test]
fn a_key_folder_left_by_a_dead_run_is_swept_at_start() {
    let base = scratch("stale-keys");
    let tmp = base.join("tmp");
    // Above the kernel's largest pid (4194304): a run that is certainly over.
    let stale = tmp.join("handshake-lab-peers-4194305-0badc0de");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("leaf-key.pem"), "secret").unwrap();
    let out = collector()
        .args(QUICK)
        .arg("--out")
        .arg(base.join("results"))
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert!(!stale.exists(), "the stale key folder is gone");
    assert!(
        text(&out.stderr).contains("a key folder left by a run that is over"),
        "{}",
        text(&out.stderr)
    );
}
