//! The server against hostile clients, each over a real socket.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::http::resolve;
use super::*;

/// A site folder with an index, a file with a space, and symlinks in and out.
fn site(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("results")).unwrap();
    std::fs::write(dir.join("index.html"), "hello").unwrap();
    std::fs::write(dir.join("results/a b.json"), "{}").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.join("passwd")).unwrap();
    std::os::unix::fs::symlink("/etc", dir.join("etc")).unwrap();
    std::os::unix::fs::symlink(dir.join("index.html"), dir.join("inside.html")).unwrap();
    dir.canonicalize().unwrap()
}

/// Starts the accept loop on a free port; returns the port.
fn start(dir: &Path, limits: Limits) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || accept_loop(listener, &dir, limits));
    port
}

/// Sends `request` raw and returns the status code and the whole answer.
fn ask(port: u16, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // The server may answer and close before all of an oversized request is written.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let code = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

fn get(port: u16, path: &str, host: &str) -> (u16, String) {
    ask(
        port,
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes(),
    )
}

#[test]
fn paths_stay_inside_the_site() {
    let dir = site("paths");
    assert_eq!(resolve(&dir, "/"), Some(dir.join("index.html")));
    assert_eq!(resolve(&dir, "/?run=x"), Some(dir.join("index.html")));
    assert_eq!(
        resolve(&dir, "/results/a%20b.json"),
        Some(dir.join("results/a b.json"))
    );
    assert_eq!(resolve(&dir, "/../etc/passwd"), None);
    assert_eq!(resolve(&dir, "/results/%2e%2e/%2e%2e/x"), None);
    assert_eq!(resolve(&dir, "/missing.js"), None);
    // Symlinks: out of the folder refused, inside it served as their target.
    assert_eq!(resolve(&dir, "/passwd"), None);
    assert_eq!(resolve(&dir, "/etc/passwd"), None);
    assert_eq!(resolve(&dir, "/inside.html"), Some(dir.join("index.html")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_loopback_hosts_with_our_port_are_answered() {
    let dir = site("host");
    let port = start(&dir, Limits::default());
    let ours = format!("127.0.0.1:{port}");
    let (code, text) = get(port, "/", &ours);
    assert_eq!(code, 200, "{text}");
    assert!(text.ends_with("hello"), "{text}");
    assert_eq!(get(port, "/", &format!("localhost:{port}")).0, 200);
    assert_eq!(get(port, "/", &format!("LocalHost:{port}")).0, 200);
    // DNS rebinding: the attacker's name, with and without our port.
    assert_eq!(get(port, "/", "evil.example").0, 421);
    assert_eq!(get(port, "/", &format!("evil.example:{port}")).0, 421);
    assert_eq!(get(port, "/", "127.0.0.1").0, 421);
    assert_eq!(get(port, "/", &format!("127.0.0.1:{}", port ^ 1)).0, 421);
    // No Host, or two.
    assert_eq!(ask(port, b"GET / HTTP/1.1\r\n\r\n").0, 400);
    let two = format!("GET / HTTP/1.1\r\nHost: {ours}\r\nHost: evil.example\r\n\r\n");
    assert_eq!(ask(port, two.as_bytes()).0, 400);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn symlinks_out_of_the_site_are_not_served() {
    let dir = site("symlink");
    let port = start(&dir, Limits::default());
    let host = format!("127.0.0.1:{port}");
    let (code, text) = get(port, "/passwd", &host);
    assert_eq!(code, 404, "{text}");
    assert!(!text.contains("root:"), "{text}");
    assert_eq!(get(port, "/etc/passwd", &host).0, 404);
    assert_eq!(get(port, "/inside.html", &host).0, 200);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn oversized_request_lines_and_heads_are_refused() {
    let dir = site("size");
    let port = start(&dir, Limits::default());
    let host = format!("127.0.0.1:{port}");
    let long_path = format!("/{}", "a".repeat(10_000));
    assert_eq!(get(port, &long_path, &host).0, 414);
    let big = format!(
        "GET / HTTP/1.1\r\nHost: {host}\r\nX-Pad: {}\r\n\r\n",
        "b".repeat(100_000)
    );
    assert_eq!(ask(port, big.as_bytes()).0, 431);
    // Many small headers add up the same way.
    let many = format!(
        "GET / HTTP/1.1\r\nHost: {host}\r\n{}\r\n",
        "X-A: 1\r\n".repeat(5_000)
    );
    assert_eq!(ask(port, many.as_bytes()).0, 431);
    // An endless head with no newline at all is cut too (not read until memory runs out).
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let chunk = vec![b'z'; 64 * 1024];
    for _ in 0..64 {
        if s.write_all(&chunk).is_err() {
            break;
        }
    }
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 414"), "{out:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn idle_and_dripping_connections_do_not_hold_the_server() {
    let dir = site("idle");
    let limits = Limits {
        head_deadline: Duration::from_millis(1500),
        max_connections: 2,
        ..Limits::default()
    };
    let port = start(&dir, limits);
    let host = format!("127.0.0.1:{port}");
    // Two connections take both slots: one idle, one dripping a byte every 100 ms
    // (each read succeeds, so only a deadline over the whole head ends it).
    let idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut drip = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let dripper = std::thread::spawn(move || {
        let started = Instant::now();
        for b in b"GET / HTTP/1.1\r\nX-Slow: "
            .iter()
            .chain([b'x'; 200].iter())
        {
            if drip.write_all(&[*b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut out = String::new();
        drip.set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let _ = drip.read_to_string(&mut out);
        (out, started.elapsed())
    });
    // A third gets a clear refusal at once rather than waiting behind them (it only
    // reads: a request still in flight when the server closes could reset the answer).
    // No wait before it: the accept queue is first in, first out, and the accept loop
    // counts a slot taken when it accepts, so the first two hold both slots by then.
    let mut third = TcpStream::connect(("127.0.0.1", port)).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut text = String::new();
    let _ = third.read_to_string(&mut text);
    assert!(text.starts_with("HTTP/1.1 503"), "{text:?}");
    let (out, took) = dripper.join().unwrap();
    assert!(out.starts_with("HTTP/1.1 408"), "{out:?}");
    // The drip would take 22 s to finish its head; it was cut by the deadline instead.
    assert!(
        took < Duration::from_secs(15),
        "dripping held a slot {took:?}"
    );
    drop(idle);
    // Once they are gone, requests are served again.
    let mut code = 0;
    for _ in 0..50 {
        code = get(port, "/", &host).0;
        if code == 200 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(code, 200);
    std::fs::remove_dir_all(&dir).unwrap();
}
