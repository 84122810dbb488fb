//! What the last build of a site made from which evidence, so the next one reuses it: the
//! content hash of every run whose summary and head it wrote, under the identity of the
//! program that wrote them (a rebuilt `xtask` may summarise differently, so its site is
//! built anew). Kept beside the site's marker, outside `results/`.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The file, at the top of the site.
pub const BUILT: &str = ".handshake-lab-built.json";

#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Built {
    /// The program that built the site ([`program`]).
    pub program: String,
    /// Each evidence file of the site whose summary and head were written, by name: the
    /// content hash they were made from ([`content_hash`]).
    pub runs: BTreeMap<String, String>,
}

impl Built {
    /// The record of `out`'s last build, if it was made by `program`; otherwise (no
    /// record, another program, a record that does not read) an empty one: nothing reused.
    pub fn read(out: &Path, program: &str) -> Built {
        let read: Option<Built> = std::fs::read_to_string(out.join(BUILT))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        match read {
            Some(b) if b.program == program => b,
            _ => Built {
                program: program.to_string(),
                runs: BTreeMap::new(),
            },
        }
    }

    pub fn write(&self, out: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a map of strings serializes");
        std::fs::write(out.join(BUILT), text + "\n")
    }
}

/// `bytes`' length and 128 bits of SipHash (two keyed passes), as hex: a changed file
/// changes it (a collision among a site's files is about 2^-100 likely).
pub fn content_hash(bytes: &[u8]) -> String {
    let pass = |key: u64| {
        #[allow(deprecated)]
        // SipHasher: std's stable keyed SipHash; DefaultHasher's algorithm may change.
        let mut h = std::hash::SipHasher::new_with_keys(key, !key);
        bytes.hash(&mut h);
        h.finish()
    };
    format!(
        "{}-{:016x}{:016x}",
        bytes.len(),
        pass(0x6873_6c61_625f_7369),
        pass(0x7465_5f62_7569_6c74)
    )
}

/// The identity of this program: the content hash of its own executable (any rebuild of
/// `xtask` or the viewer's data code it links is another program).
pub fn program() -> String {
    std::env::current_exe()
        .and_then(std::fs::read)
        .map(|b| content_hash(&b))
        .unwrap_or_else(|_| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_byte_or_length_changes_the_hash() {
        let a = content_hash(b"{\"run\":1}");
        assert_eq!(a, content_hash(b"{\"run\":1}"));
        assert_ne!(a, content_hash(b"{\"run\":2}"));
        assert_ne!(a, content_hash(b"{\"run\":1} "));
        assert!(a.starts_with("9-"), "{a}");
        assert_eq!(a.len(), "9-".len() + 32);
    }

    #[test]
    fn the_program_is_named_by_its_own_executable() {
        // The executable's length, read from the file system, opens the identity: a
        // constant would let a rebuilt xtask reuse what an older one wrote.
        let len = std::fs::metadata(std::env::current_exe().unwrap())
            .unwrap()
            .len();
        let p = program();
        assert!(p.starts_with(&format!("{len}-")), "{p} for {len} bytes");
        assert_eq!(p.len(), format!("{len}-").len() + 32, "{p}");
    }

    #[test]
    fn a_record_of_another_program_or_none_reuses_nothing() {
        let dir = std::env::temp_dir().join(format!("xtask-built-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert!(Built::read(&dir, "p1").runs.is_empty());
        let mut b = Built::read(&dir, "p1");
        b.runs.insert("a.json".into(), "1-00".into());
        b.write(&dir).unwrap();
        assert_eq!(Built::read(&dir, "p1"), b);
        assert!(Built::read(&dir, "p2").runs.is_empty());
        std::fs::write(dir.join(BUILT), "{").unwrap();
        assert!(Built::read(&dir, "p1").runs.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
