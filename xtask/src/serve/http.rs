//! One request on one connection: read a bounded head within a deadline, check the Host,
//! resolve the path inside the site's canonical root, answer.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use super::Limits;

/// What went wrong reading a request head (each maps to one status).
#[derive(Debug, PartialEq)]
pub enum HeadError {
    /// The request line is longer than [`Limits::max_request_line`]: 414.
    LineTooLong,
    /// The head is longer than [`Limits::max_head`]: 431.
    HeadTooLarge,
    /// The head did not arrive within [`Limits::head_deadline`]: 408.
    Timeout,
    /// The peer closed, or the socket failed: no answer.
    Closed,
}

/// Reads up to the blank line ending the head, at most `limits.max_head` bytes, by
/// `deadline` in total (one slow byte at a time does not extend it).
pub fn read_head(
    stream: &mut TcpStream,
    limits: &Limits,
    deadline: Instant,
) -> Result<Vec<u8>, HeadError> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    loop {
        if let Some(end) = find_end(&head) {
            head.truncate(end);
            return Ok(head);
        }
        let line_end = head.iter().position(|&b| b == b'\n');
        if line_end.unwrap_or(head.len()) > limits.max_request_line {
            return Err(HeadError::LineTooLong);
        }
        if head.len() > limits.max_head {
            return Err(HeadError::HeadTooLarge);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HeadError::Timeout);
        }
        stream
            .set_read_timeout(Some(left))
            .map_err(|_| HeadError::Closed)?;
        // Never read past the limit (plus the bytes that would prove it was passed).
        let room = (limits.max_head + 1 - head.len().min(limits.max_head)).min(buf.len());
        match stream.read(&mut buf[..room]) {
            Ok(0) => return Err(HeadError::Closed),
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(HeadError::Timeout)
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Err(HeadError::Closed),
        }
    }
}

fn find_end(head: &[u8]) -> Option<usize> {
    let crlf = head.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = head.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The status and body for a parsed head, or the file to send.
pub enum Answer {
    File(PathBuf, bool),
    Status(u16, &'static str, bool),
}

/// Decides what to answer: `root` is the site's canonical folder, `port` the one we
/// listen on (the only Hosts accepted are `127.0.0.1:port` and `localhost:port`).
pub fn answer(head: &[u8], root: &Path, port: u16) -> Answer {
    let Ok(head) = std::str::from_utf8(head) else {
        return Answer::Status(400, "the request is not UTF-8\n", true);
    };
    let mut lines = head.lines();
    let request = lines.next().unwrap_or("");
    let mut parts = request.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let body_wanted = method != "HEAD";
    let mut hosts = lines.filter_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("host")
            .then(|| value.trim())
    });
    let (host, second) = (hosts.next(), hosts.next());
    if method != "GET" && method != "HEAD" {
        return Answer::Status(405, "only GET and HEAD\n", true);
    }
    match (host, second) {
        (Some(h), None) if host_allowed(h, port) => {}
        (None, _) | (Some(_), Some(_)) => {
            return Answer::Status(400, "one Host header is needed\n", body_wanted)
        }
        // A page elsewhere that rebinds its name to 127.0.0.1 sends its own name here.
        (Some(_), None) => {
            return Answer::Status(
                421,
                "only Host 127.0.0.1:PORT or localhost:PORT is served\n",
                body_wanted,
            )
        }
    }
    match resolve(root, target) {
        Some(path) => Answer::File(path, body_wanted),
        None => Answer::Status(404, "not found\n", body_wanted),
    }
}

fn host_allowed(host: &str, port: u16) -> bool {
    let want = port.to_string();
    match host.rsplit_once(':') {
        Some((name, p)) => {
            p == want && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
        }
        None => false,
    }
}

/// The file for a request target, never outside `root` (which must be canonical):
/// `..` is refused, and the file's own canonical path (symlinks followed) must still be
/// inside `root`. Folders serve their index.html.
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let decoded = percent_decode(path)?;
    let mut out = root.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    let real = out.canonicalize().ok()?;
    (real.starts_with(root) && real.is_file()).then_some(real)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

pub fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        414 => "URI Too Long",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

pub fn reply_head(w: &mut impl Write, code: u16, kind: &str, len: u64) -> std::io::Result<()> {
    write!(
        w,
        "HTTP/1.1 {code} {}\r\nContent-Type: {kind}\r\nContent-Length: {len}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        reason(code)
    )
}

pub fn reply_text(
    w: &mut impl Write,
    code: u16,
    body: &str,
    with_body: bool,
) -> std::io::Result<()> {
    reply_head(w, code, "text/plain; charset=utf-8", body.len() as u64)?;
    if with_body {
        w.write_all(body.as_bytes())?;
    }
    w.flush()
}

pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "jsonl" => "application/jsonl",
        // A site's results (`.json.gz`): served as the bytes they are, as static hosts do
        // (no Content-Encoding); the page gunzips them.
        "gz" => "application/gzip",
        "css" => "text/css",
        "png" => "image/png",
        "csv" => "text/csv",
        _ => "application/octet-stream",
    }
}
