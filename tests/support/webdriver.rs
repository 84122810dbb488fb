//! A minimal W3C WebDriver client for headless Chromium through chromedriver, over plain
//! HTTP/1.1 on 127.0.0.1 (std only: a few JSON calls do not need an async HTTP stack).

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Flags Chromium needs here: root without a sandbox, no GPU, and no network traffic of
/// its own (it would try hosts this machine cannot reach).
pub const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Chromium's own temp profiles in /tmp (`org.chromium.Chromium.*`).
fn chromium_temp_dirs() -> BTreeSet<PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("org.chromium.Chromium."))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A chromedriver process with one Chromium session; both end (and the temp profile is
/// removed) on drop.
pub struct Browser {
    port: u16,
    driver: Child,
    session: String,
    profile: PathBuf,
    temp_before: BTreeSet<PathBuf>,
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

impl Browser {
    /// Starts chromedriver and a headless Chromium of `width × height` CSS pixels with
    /// a fresh profile in `profile`; `extra` are more Chromium flags.
    pub fn start(profile: PathBuf, width: u32, height: u32, extra: &[&str]) -> Browser {
        let temp_before = chromium_temp_dirs();
        let port = free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts (cargo xtask test installs chromium-driver)");
        let mut browser = Browser {
            port,
            driver,
            session: String::new(),
            profile,
            temp_before,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while browser.call("GET", "/status", None).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not come up");
            std::thread::sleep(Duration::from_millis(100));
        }
        std::fs::create_dir_all(&browser.profile).expect("profile dir");
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", browser.profile.display()));
        args.push(format!("--window-size={width},{height}"));
        args.extend(extra.iter().map(|s| s.to_string()));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args},
        }}});
        let created = browser
            .call("POST", "/session", Some(caps))
            .expect("a Chromium session");
        browser.session = created["value"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        browser
    }

    /// One WebDriver command; `Err` carries the WebDriver error.
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port))
            .map_err(|e| format!("connect: {e}"))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .map_err(|e| e.to_string())?;
        let body = read_response(&mut stream)?;
        let value: Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?;
        if value["value"]["error"].is_string() {
            return Err(format!(
                "{}: {}",
                value["value"]["error"], value["value"]["message"]
            ));
        }
        Ok(value)
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        match self.call(method, &path, body) {
            Ok(v) => v["value"].clone(),
            Err(e) => panic!("WebDriver {method} {path}: {e}"),
        }
    }

    pub fn goto(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its value.
    pub fn exec(&self, script: &str, args: Value) -> Value {
        self.session_call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// Polls the expression `js` until it is truthy; returns its value.
    pub fn wait_for(&self, what: &str, js: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.exec(&format!("return ({js});"), json!([]));
            let truthy = !(v.is_null()
                || v == json!(false)
                || v == json!(0)
                || v == json!("")
                || v == json!([]));
            if truthy {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what} ({js})"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The WebDriver id of the first element matching `css`.
    fn find(&self, css: &str) -> String {
        let found = self.session_call(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        found[ELEMENT_KEY]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string()
    }

    /// Clicks the first element matching `css` the way a user would (WebDriver click).
    /// Clicks the element matching `css` as a user would: brought to the middle of the
    /// window first. (WebDriver clicks an element already in the window where it is, and
    /// one at the window's top edge sits under the page's sticky section bar.)
    pub fn click(&self, css: &str) {
        let id = self.find(css);
        self.exec(
            "arguments[0].scrollIntoView({block: 'center', inline: 'nearest'});",
            json!([{ ELEMENT_KEY: id }]),
        );
        self.session_call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Types `text` into the element matching `css` (for a file input: a file path).
    pub fn send_keys(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.session_call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Presses and releases `key` (a WebDriver key code, e.g. `\u{E004}` for Tab) while
    /// holding `held` (e.g. `\u{E008}` for Shift), as a user's keyboard would.
    pub fn press(&self, held: Option<&str>, key: &str) {
        let mut actions = Vec::new();
        if let Some(h) = held {
            actions.push(json!({"type": "keyDown", "value": h}));
        }
        actions.push(json!({"type": "keyDown", "value": key}));
        actions.push(json!({"type": "keyUp", "value": key}));
        if let Some(h) = held {
            actions.push(json!({"type": "keyUp", "value": h}));
        }
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]});
        self.session_call("POST", "/actions", Some(body));
    }

    /// The text of an open alert dialog, or None when WebDriver answers `no such alert`.
    /// Any other failure (a dead driver, a bad session, a non-text answer) panics: it
    /// must not read as "no script ran".
    pub fn alert_text(&self) -> Option<String> {
        let path = format!("/session/{}/alert/text", self.session);
        match self.call("GET", &path, None) {
            Ok(v) => match v["value"].as_str() {
                Some(text) => Some(text.to_string()),
                None => panic!("WebDriver GET {path}: no alert text in {v}"),
            },
            // `call` renders the WebDriver error code as a JSON string first.
            Err(e) if e.starts_with("\"no such alert\":") => None,
            Err(e) => panic!("WebDriver GET {path}: {e}"),
        }
    }
}

/// Reads one HTTP response's body: by Content-Length (chromedriver keeps the connection
/// open even when asked to close it), else chunked, else to the end.
fn read_response(stream: &mut TcpStream) -> Result<String, String> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let header_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("connection closed before the HTTP headers ended".into());
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..header_end]).to_ascii_lowercase();
    let length = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .and_then(|v| v.trim().parse::<usize>().ok())
    });
    match length {
        Some(len) => {
            while raw.len() < header_end + len {
                let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
                if n == 0 {
                    break;
                }
                raw.extend_from_slice(&buf[..n]);
            }
            Ok(String::from_utf8_lossy(&raw[header_end..]).into_owned())
        }
        None => {
            stream.read_to_end(&mut raw).map_err(|e| e.to_string())?;
            let body = String::from_utf8_lossy(&raw[header_end..]).into_owned();
            Ok(if head.contains("transfer-encoding: chunked") {
                dechunk(&body)
            } else {
                body
            })
        }
    }
}

/// Processes whose command line names `--user-data-dir=<profile>`.
fn processes_using(profile: &std::path::Path) -> Vec<u32> {
    let flag = format!("--user-data-dir={}", profile.display());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| c.split(|b| *b == 0).any(|arg| arg == flag.as_bytes()))
                .unwrap_or(false)
        })
        .collect()
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        // A Chromium whose session never got to DELETE outlives chromedriver: end the
        // processes running on this browser's own profile (and only those).
        for pid in processes_using(&self.profile) {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
        let _ = std::fs::remove_dir_all(&self.profile);
        for dir in chromium_temp_dirs().difference(&self.temp_before) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
