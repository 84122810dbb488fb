//! A small static file server for the site, bound to 127.0.0.1 only.
//!
//! `cargo xtask serve [DIR] [--port N]`: `--port 0` lets the system pick; when the asked
//! port is taken the next free one is used and said. The first line on stdout is the URL.
//! Ctrl-C stops it.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::site;

/// The port `cargo xtask lab` tries first.
pub const DEFAULT_PORT: u16 = 8000;

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut dir = None;
    let mut port = DEFAULT_PORT;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--port" => {
                port = it
                    .next()
                    .and_then(|p| p.parse().ok())
                    .context("--port needs a number (0: any free port)")?
            }
            flag if flag.starts_with('-') => bail!("unknown serve flag `{flag}`"),
            path => dir = Some(PathBuf::from(path)),
        }
    }
    serve(&dir.unwrap_or_else(site::default_out), port)?;
    Ok(ExitCode::SUCCESS)
}

/// Binds 127.0.0.1 on `port` (or the next free port within 20; 0: any).
pub fn bind(port: u16) -> Result<TcpListener> {
    let mut last = None;
    let candidates: Vec<u16> = if port == 0 {
        vec![0]
    } else {
        (port..=port.saturating_add(20)).collect()
    };
    for p in candidates {
        match TcpListener::bind((Ipv4Addr::LOCALHOST, p)) {
            Ok(l) => {
                if p != port {
                    eprintln!("xtask: port {port} is in use; using {p} instead");
                }
                return Ok(l);
            }
            Err(e) => last = Some(e),
        }
    }
    let e = last.map(|e| e.to_string()).unwrap_or_default();
    bail!(
        "no free port on 127.0.0.1 from {port} to {} ({e}); pass --port 0",
        port.saturating_add(20)
    )
}

/// Serves `dir` until the process is stopped.
pub fn serve(dir: &Path, port: u16) -> Result<()> {
    if !dir.is_dir() {
        bail!(
            "{} is not a folder; build the site first (cargo xtask site)",
            dir.display()
        );
    }
    if !dir.join("index.html").is_file() {
        eprintln!(
            "xtask: note: {} has no index.html; serving its files (a site in a sub-folder?)",
            dir.display()
        );
    }
    let listener = bind(port)?;
    let addr = listener.local_addr()?;
    println!("http://{addr}/");
    eprintln!(
        "xtask: serving {} at http://{addr}/ (Ctrl-C stops)",
        dir.display()
    );
    let _ = std::io::stdout().flush();
    let dir = dir.to_path_buf();
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let dir = dir.clone();
        std::thread::spawn(move || {
            let _ = respond(stream, &dir);
        });
    }
    Ok(())
}

fn respond(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return reply(&mut stream, 405, "text/plain", b"only GET and HEAD\n", true);
    }
    let body_wanted = method == "GET";
    match resolve(dir, target) {
        Some(path) => match std::fs::read(&path) {
            Ok(body) => reply(&mut stream, 200, content_type(&path), &body, body_wanted),
            Err(_) => reply(&mut stream, 404, "text/plain", b"not found\n", body_wanted),
        },
        None => reply(&mut stream, 404, "text/plain", b"not found\n", body_wanted),
    }
}

fn reply(
    stream: &mut TcpStream,
    code: u16,
    kind: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    let reason = match code {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    write!(
        stream,
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// The file for a request target, never outside `dir`; folders serve their index.html.
fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let decoded = percent_decode(path)?;
    let mut out = dir.to_path_buf();
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
    out.is_file().then_some(out)
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

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "css" => "text/css",
        "png" => "image/png",
        "csv" => "text/csv",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_site() {
        let dir = std::env::temp_dir().join(format!("xtask-serve-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("results")).unwrap();
        std::fs::write(dir.join("index.html"), "x").unwrap();
        std::fs::write(dir.join("results/a b.json"), "{}").unwrap();
        assert_eq!(resolve(&dir, "/"), Some(dir.join("index.html")));
        assert_eq!(resolve(&dir, "/?run=x"), Some(dir.join("index.html")));
        assert_eq!(
            resolve(&dir, "/results/a%20b.json"),
            Some(dir.join("results/a b.json"))
        );
        assert_eq!(resolve(&dir, "/../etc/passwd"), None);
        assert_eq!(resolve(&dir, "/results/%2e%2e/%2e%2e/x"), None);
        assert_eq!(resolve(&dir, "/missing.js"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
