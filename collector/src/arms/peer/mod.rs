//! What a peer stack implements and the infrastructure it runs on. Other TLS stacks
//! (OpenSSL's tools, Python's `ssl`, nginx, …) each have a folder under `arms/`; this is
//! what those folders share: the interface a stack implements ([`PeerStack`], its arms as
//! [`PeerArm`], the programs they need as [`Tool`]), what a stack gets while its arms run
//! ([`Work`]: the run's settings, the private folder and files, the tools found, and the
//! timing loop the driver lends), and the parts every stack uses: the private folder for
//! keys and configs ([`private_dir`], [`files`]), peer processes ([`process`], started
//! once by [`launch`]) and their readiness ([`ready`]), server logs matched by port
//! ([`port_log`]), the rustls client against a server stack ([`servers`]), and a server's
//! instructions per handshake counted as a whole process ([`counted`]).
//!
//! The driver of the peer phase (`crate::peers`: the list of stacks, planning, tool look-up,
//! skips) sits above the timing loop; nothing here names it, nor the loop, so the stacks
//! stay below both. Keys and certificates go to a [`private_dir::PrivateDir`] that is
//! removed on every way out.

mod args;
pub mod arm;
pub mod counted;
pub mod counter;
pub mod files;
pub mod launch;
pub mod port_log;
pub mod private_dir;
pub mod process;
pub mod ready;
pub mod servers;
mod stack;
pub mod work;

pub use args::PeerArgs;
pub use arm::{ask_version, first_line, PeerArm, Tool};
pub use counter::ProcessCounter;
pub use stack::PeerStack;
pub use work::{Context, Lent, Work};
