//! Starting a peer server process, written once for every server stack: its output
//! files in the run's private folder, the spawn (on the servers' CPUs, killed on every
//! way out) and the wait until a handshake with it presents the run's leaf. A stack says
//! only how its command line is built ([`Launch::start`]).

use std::ffi::OsString;
use std::fs::File;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result};

use super::private_dir::PrivateDir;
use super::process::ServerProcess;

/// Where a peer server's stdout and stderr go, as files `<stem>.log` / `<stem>.stderr`
/// in the run's private folder. The process's failure messages quote the stderr file
/// (`.log` where both go there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// stdout to `.log` (the server's per-connection log), stderr to `.stderr`.
    LogAndStderr,
    /// Both to `.log`.
    Joined,
    /// stdout discarded, stderr to `.stderr`.
    StderrOnly,
}

/// One server process to start.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    /// The program, in messages: `haproxy`, `botan tls_server`.
    pub what: &'a str,
    /// The file names' stem in the private folder, e.g. `haproxy-rsa2048-tls13-x25519-tickets`.
    pub stem: String,
    /// The setup, in messages: `haproxy (rsa2048-tls13-x25519-tickets)`.
    pub setup: String,
    pub addr: SocketAddr,
    pub output: Output,
    /// A program the server runs under (valgrind, to count its instructions), or none.
    pub under: Option<&'a Under>,
}

/// A program another runs under, with its own arguments before the other's command line
/// (e.g. `valgrind --tool=callgrind … openssl s_server …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Under {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

impl Under {
    /// `cmd` run under this program: the same program, arguments, folder and
    /// environment, after this program and its arguments.
    pub fn around(&self, cmd: &Command) -> Command {
        let mut out = Command::new(&self.program);
        out.args(&self.args)
            .arg(cmd.get_program())
            .args(cmd.get_args());
        if let Some(dir) = cmd.get_current_dir() {
            out.current_dir(dir);
        }
        for (k, v) in cmd.get_envs() {
            match v {
                Some(v) => out.env(k, v),
                None => out.env_remove(k),
            };
        }
        out
    }
}

/// A started server and the files its output goes to.
pub struct Launched {
    pub process: ServerProcess,
    /// Its stdout, where it is kept ([`Output::LogAndStderr`], [`Output::Joined`]).
    pub stdout: Option<PathBuf>,
    /// Its stderr.
    pub stderr: PathBuf,
}

impl<'a> Launch<'a> {
    /// `what` started for `setup`, its files named `<prefix>-<setup>.*`.
    pub fn new(
        what: &'a str,
        prefix: &str,
        setup: String,
        addr: SocketAddr,
        output: Output,
    ) -> Launch<'a> {
        Launch {
            what,
            stem: format!("{prefix}-{setup}"),
            setup,
            addr,
            output,
            under: None,
        }
    }

    /// The same server, run under `under` where it is given.
    pub fn under(self, under: Option<&'a Under>) -> Launch<'a> {
        Launch { under, ..self }
    }

    /// Sends `cmd`'s output where [`Launch::output`] says (stdin from /dev/null), starts
    /// it and waits until `ready` succeeds against its address.
    pub fn start(
        &self,
        cmd: &mut Command,
        dir: &PrivateDir,
        io_timeout: Duration,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Launched> {
        let mut wrapped = self.under.map(|u| u.around(cmd));
        let cmd = wrapped.as_mut().unwrap_or(cmd);
        let log = dir.path().join(format!("{}.log", self.stem));
        let err = dir.path().join(format!("{}.stderr", self.stem));
        let (stdout, stderr) = match self.output {
            Output::LogAndStderr => {
                cmd.stdout(create(&log)?).stderr(create(&err)?);
                (Some(log), err)
            }
            Output::Joined => {
                let file = create(&log)?;
                cmd.stdout(file.try_clone()?).stderr(file);
                (Some(log.clone()), log)
            }
            Output::StderrOnly => {
                cmd.stdout(Stdio::null()).stderr(create(&err)?);
                (None, err)
            }
        };
        cmd.stdin(Stdio::null());
        let process =
            ServerProcess::start(cmd, self.what, self.addr, stderr.clone(), io_timeout, ready)
                .with_context(|| format!("{} ({})", self.what, self.setup))?;
        Ok(Launched {
            process,
            stdout,
            stderr,
        })
    }
}

fn create(path: &std::path::Path) -> Result<File> {
    File::create(path).with_context(|| format!("could not create {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A "server" that prints to both streams and listens on a port (a shell and nc
    /// are not always there: python3 is, where the peer tests run; without it the test
    /// fails under `cargo xtask test` and skips, saying so, under a plain `cargo test`).
    fn server(out: Output, dir: &PrivateDir) -> Option<Launched> {
        if !shared::testing::needs_tool("output_goes_to_the_files_each_kind_names", "python3") {
            return None;
        }
        // A port picked free can be taken by another test before the script binds it
        // (the script then exits): try again on a new port, and say every failure.
        let mut failures = Vec::new();
        for _ in 0..3 {
            match try_server(out, dir) {
                Ok(launched) => return Some(launched),
                Err(e) => failures.push(format!("{e:#}")),
            }
        }
        panic!("the test server did not start: {failures:#?}");
    }

    fn try_server(out: Output, dir: &PrivateDir) -> Result<Launched> {
        let addr = crate::arms::peer::process::free_loopback_addr()?;
        let script = format!(
            "import socket,sys,time\nprint('to stdout', flush=True)\nprint('to stderr', file=sys.stderr, flush=True)\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\ns.bind(('127.0.0.1',{}))\ns.listen()\nt=time.time()\nwhile time.time()-t<30:\n  c,_=s.accept()\n  c.sendall(b'launch-test')\n  c.close()",
            addr.port()
        );
        let mut cmd = Command::new("python3");
        cmd.args(["-c", &script]);
        let launch = Launch {
            what: "test server",
            stem: format!("test-{out:?}"),
            setup: "one".into(),
            addr,
            output: out,
            under: None,
        };
        // Ready when this script answers (not when anything listens on the port: a port
        // picked free may be taken by another test's listener meanwhile, which answered
        // before this script had written its lines).
        let ready = |a: SocketAddr| -> Result<()> {
            use std::io::Read;
            let mut said = Vec::new();
            std::net::TcpStream::connect(a)?.read_to_end(&mut said)?;
            anyhow::ensure!(said == b"launch-test", "another listener");
            Ok(())
        };
        launch.start(&mut cmd, dir, Duration::from_secs(10), &ready)
    }

    /// What the server wrote to `p` once `done` holds for it: the script flushes its lines
    /// before it answers, but a test reading another process's file waits for the content it
    /// expects (up to ten seconds) instead of trusting that; a missing file is an error.
    fn read_when(p: &std::path::Path, done: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let text = std::fs::read_to_string(p)
                .unwrap_or_else(|e| panic!("could not read {}: {e}", p.display()));
            if done(&text) || std::time::Instant::now() > deadline {
                return text;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn read(p: &std::path::Path, expected: &str) -> String {
        read_when(p, |t| t == expected)
    }

    #[test]
    fn output_goes_to_the_files_each_kind_names() {
        let dir = PrivateDir::create().unwrap();
        let Some(split) = server(Output::LogAndStderr, &dir) else {
            return;
        };
        let joined = server(Output::Joined, &dir).unwrap();
        let quiet = server(Output::StderrOnly, &dir).unwrap();
        let log = split.stdout.as_ref().unwrap();
        assert!(log.ends_with("test-LogAndStderr.log"), "{log:?}");
        assert_eq!(read(log, "to stdout\n"), "to stdout\n");
        assert_eq!(read(&split.stderr, "to stderr\n"), "to stderr\n");
        assert_eq!(joined.stdout.as_ref(), Some(&joined.stderr));
        let both = read_when(&joined.stderr, |t| {
            t.contains("to stdout") && t.contains("to stderr")
        });
        assert!(
            both.contains("to stdout") && both.contains("to stderr"),
            "{both}"
        );
        assert_eq!(quiet.stdout, None);
        assert_eq!(read(&quiet.stderr, "to stderr\n"), "to stderr\n");
        assert!(
            TcpListener::bind(split.process.addr()).is_err(),
            "it listens"
        );
    }

    #[test]
    fn a_server_that_exits_is_named_with_its_setup() {
        let dir = PrivateDir::create().unwrap();
        let addr = crate::arms::peer::process::free_loopback_addr().unwrap();
        let launch = Launch {
            what: "false",
            stem: "false-one".into(),
            setup: "one".into(),
            addr,
            output: Output::StderrOnly,
            under: None,
        };
        let ready = |_: SocketAddr| -> Result<()> { anyhow::bail!("not yet") };
        let Err(e) = launch.start(
            &mut Command::new("false"),
            &dir,
            Duration::from_secs(5),
            &ready,
        ) else {
            panic!("`false` cannot become ready");
        };
        assert!(format!("{e:#}").starts_with("false (one): "), "{e:#}");
    }

    #[test]
    fn a_command_under_another_keeps_its_arguments_folder_and_environment() {
        let mut inner = Command::new("/usr/bin/openssl");
        inner
            .args(["s_server", "-accept", "127.0.0.1:1"])
            .current_dir("/tmp/www")
            .env("HLAB_SET", "1")
            .env_remove("HLAB_GONE");
        let under = Under {
            program: "/usr/bin/valgrind".into(),
            args: vec!["--tool=callgrind".into(), "--log-file=/tmp/l".into()],
        };
        let outer = under.around(&inner);
        assert_eq!(outer.get_program(), "/usr/bin/valgrind");
        let args: Vec<&std::ffi::OsStr> = outer.get_args().collect();
        assert_eq!(
            args,
            [
                "--tool=callgrind",
                "--log-file=/tmp/l",
                "/usr/bin/openssl",
                "s_server",
                "-accept",
                "127.0.0.1:1"
            ]
        );
        assert_eq!(
            outer.get_current_dir(),
            Some(std::path::Path::new("/tmp/www"))
        );
        let envs: std::collections::BTreeMap<_, _> = outer.get_envs().collect();
        let os = std::ffi::OsStr::new;
        assert_eq!(
            envs,
            [(os("HLAB_GONE"), None), (os("HLAB_SET"), Some(os("1")))].into()
        );
    }
}
