//! How the collector refuses: what it says and the exit status, before measuring.

use std::process::Command;

use e2e::{collector, collector_bin, scratch};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn arms_that_match_nothing_exit_1_and_list_the_arms() {
    let dir = scratch("arms-match-nothing");
    let out = collector()
        .args(["run", "--no-peers", "--arms", "nothing-like-this", "--out"])
        .arg(&dir)
        .output()
        .expect("collector runs");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("--arms `nothing-like-this` matches no arm")
            && err.contains("tls13-full-rsa2048-x25519")
            && err.contains("tcp-connect"),
        "{err}"
    );
    // Nothing was written.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

/// Removes the namespace on drop.
struct Netns(String);

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

/// A non-loopback --target without --allow-remote is refused before any connection. The
/// run happens in a network namespace without routes, so even a broken check could send
/// nothing off this machine.
#[test]
fn a_bad_rtt_list_is_a_usage_error_before_anything_runs() {
    // Parsed with the command line: no root, namespace or folder is needed to refuse it.
    // `--list-arms`: were a list accepted, the run would list its arms and exit 0 at once
    // instead of measuring over a 20-second round trip.
    let dir = scratch("bad-rtt");
    for (list, says) in [
        ("0,fast", "`fast` is not a number of milliseconds"),
        ("10,20000ms", "20000 ms is outside 0..=10000 ms"),
    ] {
        let out = collector()
            .args(["run", "--no-peers", "--list-arms", "--rtt", list, "--out"])
            .arg(&dir)
            .output()
            .expect("collector runs");
        assert_eq!(out.status.code(), Some(2), "--rtt {list}");
        let err = text(&out.stderr);
        assert!(err.contains("--rtt") && err.contains(says), "{err}");
    }
    assert!(!dir.exists() || std::fs::read_dir(&dir).unwrap().count() == 0);
}

#[test]
fn a_remote_target_needs_allow_remote() {
    if !e2e::needs_root("a_remote_target_needs_allow_remote") {
        return;
    }
    let ns = Netns(format!("hlab-remote-{}", std::process::id()));
    for args in [
        vec!["netns", "add", &ns.0],
        vec!["netns", "exec", &ns.0, "ip", "link", "set", "lo", "up"],
    ] {
        assert!(Command::new("ip").args(&args).status().unwrap().success());
    }
    let dir = scratch("remote-needs-allow");
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, "not used").unwrap();
    let out = Command::new("ip")
        .args(["netns", "exec", &ns.0])
        .arg(collector_bin())
        .args(["run", "--target", "192.0.2.7:4433", "--token", "x", "--ca"])
        .arg(&ca)
        .arg("--out")
        .arg(dir.join("results"))
        .output()
        .expect("collector runs");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("--allow-remote"), "{err}");
    assert!(
        !err.contains("timing the public-key") && !err.contains("timed connections ("),
        "refused before any work: {err}"
    );
    assert!(!dir.join("results").exists(), "nothing was written");
}

/// A bad `--link`, or a setting given both by `--link` and by `--rtt` / `--loss`, is a
/// usage error: exit 2 with the part at fault named, before anything is made or written.
#[test]
fn a_bad_or_doubled_link_setting_exits_2_naming_it() {
    for (args, says) in [
        (
            vec!["--link", "rtt=20ms,loss=3"],
            "loss `3` is outside 0% ..< 100%",
        ),
        (
            vec!["--link", "colour=blue"],
            "unknown link setting `colour`",
        ),
        (vec!["--loss", "1%,x"], "`x` is not a loss rate"),
        (
            vec!["--rtt", "20ms", "--link", "rtt=5ms"],
            "the RTT is given twice: by --rtt and by rtt= in --link",
        ),
        (
            vec!["--loss", "0%,60%", "--link", "burst=1"],
            "cannot have a mean burst",
        ),
    ] {
        let dir = scratch("bad-link");
        let out = collector()
            .args(["run", "--no-peers"])
            .args(&args)
            .arg("--out")
            .arg(&dir)
            .output()
            .expect("collector runs");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "{args:?}");
    }
}
