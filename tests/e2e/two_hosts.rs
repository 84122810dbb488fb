//! Client and server on two hosts: two network namespaces joined by a veth pair (the
//! server's address is not loopback), `collector serve` in one, `collector run
//! --target` in the other. Needs root, as CI has.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
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

/// The host names the two namespaces' processes get (each its own UTS namespace).
const SERVER_NAME: &str = "hlab-server-host";
const CLIENT_NAME: &str = "hlab-client-host";

impl Hosts {
    /// `tag` (one letter) keeps the namespaces of tests running at once apart.
    fn new(tag: &str) -> Hosts {
        let pid = std::process::id();
        let hosts = Hosts {
            server: format!("hlabt-{pid}{tag}-srv"),
            client: format!("hlabt-{pid}{tag}-cli"),
        };
        let (a, b) = (format!("hlv{pid}{tag}a"), format!("hlv{pid}{tag}b"));
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

    /// The collector in namespace `ns`, in a UTS namespace of its own whose host name is
    /// the server's or the client's (`unshare`, `hostname`, then `exec`: one process, so
    /// killing it kills the collector).
    fn exec(&self, ns: &str) -> Command {
        let name = if ns == self.server {
            SERVER_NAME
        } else {
            CLIENT_NAME
        };
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns, "unshare", "--uts", "sh", "-c"])
            .args([r#"hostname "$1" && shift && exec "$@""#, "sh", name])
            .arg(collector_bin());
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

/// `collector serve` on the server's namespace at `listen` (with `extra` flags), its CA
/// written to `ca`; returns it (killed on drop) and the token it printed.
fn serve(hosts: &Hosts, listen: &str, ca: &Path, extra: &[&str]) -> (Killed, String) {
    let mut server = Killed(
        hosts
            .exec(&hosts.server)
            .args(["serve", "--listen", listen, "--allow-remote"])
            .args(["--certs", "ecdsa-p256", "--groups", "x25519"])
            .args(extra)
            .arg("--ca-out")
            .arg(ca)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let token = printed_token(&mut server.0);
    wait_for(ca);
    (server, token)
}

/// A quick `collector run --target listen` from the client's namespace.
fn run_against(hosts: &Hosts, listen: &str, ca: &Path, token: &str, out: &Path) -> Output {
    hosts
        .exec(&hosts.client)
        .args(["run", "--target", listen, "--allow-remote", "--quick"])
        .args(["--samples", "20", "--no-floor", "--token", token, "--ca"])
        .arg(ca)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn serve_on_one_host_run_on_another() {
    if !e2e::needs_root("serve_on_one_host_run_on_another") {
        return;
    }
    let dir = scratch("two-hosts");
    let ca = dir.join("ca.pem");
    let hosts = Hosts::new("a");
    let listen = "198.18.9.1:7443";

    // Without --allow-remote a non-loopback address is refused, with a reason.
    let refused = hosts
        .exec(&hosts.server)
        .args(["serve", "--listen", listen])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--allow-remote"));

    let (_server, token) = serve(&hosts, listen, &ca, &[]);
    let pem = std::fs::read_to_string(&ca).unwrap();
    assert!(
        pem.contains("BEGIN CERTIFICATE") && !pem.contains("PRIVATE KEY"),
        "the CA file holds no key"
    );

    let run = |token: &str| run_against(&hosts, listen, &ca, token, &dir.join("results"));
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
    // Each end's environment is its own: the server's is not a copy of the client's.
    assert_eq!(e.environment.hostname, CLIENT_NAME);
    assert_eq!(server_host.hostname, SERVER_NAME);
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

/// The failure paths across hosts: a CA file that is not the server's fails the control
/// handshake with a reason and writes nothing; a server whose end does not resume
/// (`serve --break-resumption`) makes each resumed arm an error naming the server's
/// report, and the run exits 3.
#[test]
fn a_wrong_ca_and_a_server_that_does_not_resume_are_errors() {
    if !e2e::needs_root("a_wrong_ca_and_a_server_that_does_not_resume_are_errors") {
        return;
    }
    let dir = scratch("two-hosts-failures");
    let hosts = Hosts::new("b");
    let listen = "198.18.9.1:7443";
    let ca = dir.join("ca.pem");
    let (_server, token) = serve(&hosts, listen, &ca, &["--break-resumption"]);

    // Another serve's CA (same names, same kind of certificate, another key).
    let other_ca = dir.join("other-ca.pem");
    let other = Killed(
        hosts
            .exec(&hosts.client)
            .args([
                "serve",
                "--listen",
                "127.0.0.1:7444",
                "--certs",
                "ecdsa-p256",
            ])
            .args(["--groups", "x25519", "--ca-out"])
            .arg(&other_ca)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for(&other_ca);
    drop(other);
    let wrong = run_against(&hosts, listen, &other_ca, &token, &dir.join("wrong-ca"));
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert_eq!(wrong.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("TLS handshake with `collector serve` at 198.18.9.1:7443 failed")
            && stderr.contains("--ca")
            && stderr.contains("invalid peer certificate"),
        "a reason that names the CA file and the certificate: {stderr}"
    );
    let written = std::fs::read_dir(dir.join("wrong-ca"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(written, 0, "no evidence from a refused session");

    let out = run_against(&hosts, listen, &ca, &token, &dir.join("results"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let e = read_evidence(&dir.join("results"));
    assert_eq!(
        e.environment
            .server_host
            .as_ref()
            .map(|h| h.hostname.as_str()),
        Some(SERVER_NAME)
    );
    let resumed: Vec<_> = e.arms.iter().filter(|a| a.mode == Mode::Resumed).collect();
    assert_eq!(resumed.len(), 4, "TLS 1.3 and 1.2, stateful and ticket");
    for a in &resumed {
        let error = a.error.as_deref().unwrap_or_default();
        assert!(
            error.contains("server reported a full handshake, expected resumed"),
            "{}: {error}",
            a.id
        );
        assert_eq!(a.resumed.server, 0, "{}", a.id);
    }
    for a in e.arms.iter().filter(|a| a.mode != Mode::Resumed) {
        assert_eq!(a.error, None, "{}", a.id);
    }
}
