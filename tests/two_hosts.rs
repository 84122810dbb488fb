//! Client and server on two hosts: two network namespaces joined by a veth pair (the
//! server's address is not loopback), `collector serve` in one, `collector run
//! --target` in the other. Needs root, as CI has.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use e2e::{collector_bin, read_evidence, scratch};
use shared::Mode;

/// Two namespaces and a veth pair, removed on drop.
struct Hosts {
    server: String,
    client: String,
}

fn ip(args: &[&str]) {
    let st = Command::new("ip").args(args).status().expect("ip runs");
    assert!(st.success(), "ip {args:?} failed");
}

impl Hosts {
    fn new() -> Hosts {
        let pid = std::process::id();
        let hosts = Hosts {
            server: format!("hlabt-{pid}-srv"),
            client: format!("hlabt-{pid}-cli"),
        };
        let (a, b) = (format!("hlv{pid}a"), format!("hlv{pid}b"));
        ip(&["netns", "add", &hosts.server]);
        ip(&["netns", "add", &hosts.client]);
        ip(&["link", "add", &a, "type", "veth", "peer", "name", &b]);
        ip(&["link", "set", &a, "netns", &hosts.server]);
        ip(&["link", "set", &b, "netns", &hosts.client]);
        for (ns, dev, addr) in [
            (&hosts.server, &a, "198.18.9.1/24"),
            (&hosts.client, &b, "198.18.9.2/24"),
        ] {
            ip(&["-n", ns, "addr", "add", addr, "dev", dev]);
            ip(&["-n", ns, "link", "set", dev, "up"]);
            ip(&["-n", ns, "link", "set", "lo", "up"]);
        }
        hosts
    }

    fn exec(&self, ns: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns]).arg(collector_bin());
        c
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in [&self.server, &self.client] {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The token from serve's `--token T` hint; the rest of its stderr is drained.
fn printed_token(server: &mut Child) -> String {
    let stderr = server.stderr.take().expect("stderr piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some((_, rest)) = line.split_once("--token ") {
                let token: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
                let _ = tx.send(token);
            }
        }
    });
    let token = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("serve prints --token");
    assert_eq!(token.len(), 32, "128 bits in hex: {token}");
    token
}

#[test]
fn serve_on_one_host_run_on_another() {
    if !e2e::needs_root("serve_on_one_host_run_on_another") {
        return;
    }
    let dir = scratch("two-hosts");
    let ca = dir.join("ca.pem");
    let hosts = Hosts::new();
    let listen = "198.18.9.1:7443";

    // Without --allow-remote a non-loopback address is refused, with a reason.
    let refused = hosts
        .exec(&hosts.server)
        .args(["serve", "--listen", listen])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--allow-remote"));

    let mut server = Killed(
        hosts
            .exec(&hosts.server)
            .args([
                "serve",
                "--listen",
                listen,
                "--allow-remote",
                "--certs",
                "ecdsa-p256",
                "--groups",
                "x25519",
            ])
            .arg("--ca-out")
            .arg(&ca)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let token = printed_token(&mut server.0);
    wait_for(&ca);
    let pem = std::fs::read_to_string(&ca).unwrap();
    assert!(
        pem.contains("BEGIN CERTIFICATE") && !pem.contains("PRIVATE KEY"),
        "the CA file holds no key"
    );

    let run = |token: &str| {
        hosts
            .exec(&hosts.client)
            .args([
                "run",
                "--target",
                listen,
                "--allow-remote",
                "--quick",
                "--samples",
                "20",
                "--no-floor",
                "--token",
                token,
            ])
            .arg("--ca")
            .arg(&ca)
            .arg("--out")
            .arg(dir.join("results"))
            .output()
            .unwrap()
    };
    // Without the token serve printed, no session (and no evidence).
    let forged = run("00000000000000000000000000000000");
    assert_eq!(forged.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&forged.stderr);
    assert!(stderr.contains("wrong --token"), "{stderr}");
    let written = std::fs::read_dir(dir.join("results"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(written, 0, "no evidence from a refused session");

    let out = run(&token);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let e = read_evidence(&dir.join("results"));
    let server_host = e
        .environment
        .server_host
        .as_ref()
        .expect("the server host's environment is recorded");
    assert!(!server_host.kernel.is_empty());
    assert_eq!(e.arms.len(), 7, "tcp + 6 TLS arms served");
    for a in &e.arms {
        assert_eq!(a.error, None, "{}", a.id);
        assert_eq!((a.succeeded, a.failed), (20, 0), "{}", a.id);
        if a.mode == Mode::Resumed {
            assert_eq!(
                (a.resumed.client, a.resumed.server),
                (20, 20),
                "{}: both ends, across hosts",
                a.id
            );
        }
    }
}
