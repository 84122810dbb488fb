use crate::{sample, Evidence, Library, Violation};

use super::*;

/// The violations of the sample with `change` made, as (path, message).
fn after(change: impl FnOnce(&mut Evidence)) -> Vec<(String, String)> {
    let mut e = sample::evidence();
    change(&mut e);
    e.violations()
        .into_iter()
        .map(|Violation { path, message }| (path, message))
        .collect()
}

fn one(path: &str, message: &str) -> Vec<(String, String)> {
    vec![(path.to_string(), message.to_string())]
}

#[test]
fn the_limits_are_the_documented_ones() {
    assert_eq!(
        (MAX_HOST_NAME, MAX_ID, MAX_VERSION, MAX_TIME),
        (253, 128, 256, 64)
    );
}

#[test]
fn a_host_name_may_be_253_bytes_and_no_more() {
    assert_eq!(after(|e| e.environment.hostname = "h".repeat(253)), []);
    assert_eq!(
        after(|e| e.environment.hostname = "h".repeat(254)),
        one(
            "environment.hostname",
            "254 bytes long; a host name is at most 253 bytes"
        )
    );
    // Bytes, not characters: 127 two-byte characters are 254 bytes.
    assert_eq!(
        after(|e| e.environment.hostname = "é".repeat(127))[0].0,
        "environment.hostname"
    );
    // The server's host of a two-host run, by its own path.
    let far = after(|e| {
        let mut server = e.environment.clone();
        server.hostname = "s".repeat(2_000_000);
        e.environment.server_host = Some(Box::new(server));
    });
    assert_eq!(
        far,
        one(
            "environment.server_host.hostname",
            "2000000 bytes long; a host name is at most 253 bytes"
        )
    );
}

#[test]
fn run_ids_times_and_tool_strings_are_bounded() {
    assert_eq!(after(|e| e.run.id = "r".repeat(128)), []);
    assert_eq!(
        after(|e| e.run.id = "r".repeat(129)),
        one("run.id", "129 bytes long; a run id is at most 128 bytes")
    );
    assert_eq!(
        after(|e| e.run.started_at = "2".repeat(65)),
        one(
            "run.started_at",
            "65 bytes long; an RFC 3339 time is at most 64 bytes"
        )
    );
    assert_eq!(
        after(|e| e.run.finished_at = "2".repeat(65))[0].0,
        "run.finished_at"
    );
    assert_eq!(after(|e| e.run.tool.version = "v".repeat(256)), []);
    assert_eq!(
        after(|e| e.run.tool.version = "v".repeat(257)),
        one(
            "run.tool.version",
            "257 bytes long; a version is at most 256 bytes"
        )
    );
    assert_eq!(
        after(|e| e.run.tool.name = "n".repeat(129))[0].0,
        "run.tool.name"
    );
    assert_eq!(
        after(|e| e.run.tool.git_commit = Some("c".repeat(129)))[0].0,
        "run.tool.git_commit"
    );
}

#[test]
fn machine_and_library_strings_are_bounded() {
    for (path, change) in [
        (
            "environment.os",
            (|e: &mut Evidence| e.environment.os = "o".repeat(257)) as fn(&mut Evidence),
        ),
        ("environment.kernel", |e| {
            e.environment.kernel = "k".repeat(257)
        }),
        ("environment.cpu_model", |e| {
            e.environment.cpu_model = "c".repeat(257)
        }),
        ("environment.tls_library.version", |e| {
            e.environment.tls_library.version = "1".repeat(257)
        }),
        ("environment.crypto_provider.name", |e| {
            e.environment.crypto_provider.name = "a".repeat(129)
        }),
        ("environment.peers[1].version", |e| {
            e.environment.peers = vec![
                Library {
                    name: "openssl".into(),
                    version: "OpenSSL 3.0.19".into(),
                },
                Library {
                    name: "nginx".into(),
                    version: "9".repeat(1_000_000),
                },
            ]
        }),
    ] {
        let v = after(change);
        assert_eq!(v.len(), 1, "{path}: {v:?}");
        assert_eq!(v[0].0, path);
    }
}

#[test]
fn arm_ids_and_the_ids_that_name_arms_are_bounded() {
    // Renamed everywhere it is named: only the length is wrong.
    let long = format!("tls13-full-{}", "x".repeat(20_000));
    let v = after(|e| {
        let old = e.arms[1].id.clone();
        e.arms[1].id = long.clone();
        for c in &mut e.comparisons {
            for side in [&mut c.baseline, &mut c.candidate] {
                if *side == old {
                    *side = long.clone();
                }
            }
        }
    });
    assert_eq!(
        v[0],
        (
            "arms[1].id".to_string(),
            "20011 bytes long; an arm id is at most 128 bytes".to_string()
        )
    );
    assert_eq!(v[1].0, "comparisons[0].baseline");
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(after(|e| e.arms[1].id = "a".repeat(128)).len(), 1);
    assert_eq!(
        after(|e| e.arms[0].peer_version = Some("p".repeat(257))),
        one(
            "arms[0].peer_version",
            "257 bytes long; a version is at most 256 bytes"
        )
    );
    assert_eq!(
        after(|e| e.arms[0].round_group = Some("g".repeat(129)))[0].0,
        "arms[0].round_group"
    );
}

#[test]
fn messages_about_an_id_quote_at_most_its_start() {
    // Two arms with one 20,000-byte id: both the length and the duplicate are reported,
    // neither message repeats the id whole.
    let v = after(|e| {
        let id = "d".repeat(20_000);
        e.arms[0].id = id.clone();
        e.arms[1].id = id;
        e.comparisons.clear();
    });
    assert!(v
        .iter()
        .any(|(p, m)| p == "arms[1].id"
            && m == &format!("arm id `{}…` appears twice", "d".repeat(128))));
    assert!(v.iter().all(|(_, m)| m.len() < 200), "{v:?}");
    assert_eq!(quoted("short"), "short");
    // Cut on a character boundary: 64 two-byte characters fit in 128 bytes, not 65.
    assert_eq!(quoted(&"é".repeat(65)), format!("{}…", "é".repeat(64)));
}

#[test]
fn a_probe_host_is_a_host_name() {
    let probe = |host: String| {
        after(move |e| {
            e.probe = Some(crate::ServerProbe {
                host: host.clone(),
                port: 443,
                address: "192.0.2.1:443".into(),
                sni: host,
                trust: "--ca ca.pem: 1 certificate(s)".into(),
                verified_on: "client end only".into(),
                protocols: Vec::new(),
                groups: Vec::new(),
                resumption: Vec::new(),
                early_data: Vec::new(),
                cipher_suites: Vec::new(),
                signature_schemes: Vec::new(),
                chain_certificates: None,
                chain_bytes: None,
                rtt_reference_us: None,
                rtt_multiples: Default::default(),
                findings: Vec::new(),
                sent: String::new(),
                certificate_trust: None,
                verification: Default::default(),
            })
        })
    };
    assert_eq!(probe("example.com".into()), []);
    let paths: Vec<String> = probe("e".repeat(254)).into_iter().map(|v| v.0).collect();
    assert_eq!(paths, ["probe.host", "probe.sni"]);
}
