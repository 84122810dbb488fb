//! The site's results are gzipped (`.json.gz`): any static host serves them as they are
//! and the page's `hlabText` gunzips them with the browser's own `DecompressionStream`.
//! Measured on a default run (139 arms): its summary 405 KB → 37 KB, the whole evidence
//! 1.19 MB → 0.50 MB.

use std::io::{Read, Write};
use std::path::Path;

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

/// `bytes`, gzipped.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::with_capacity(bytes.len() / 3), Compression::default());
    e.write_all(bytes).expect("writing into memory");
    e.finish().expect("writing into memory")
}

/// Writes `bytes` gzipped to `path`.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, gzip(bytes))
}

/// The text of the gzip file at `path`; None when it is missing, not gzip or not UTF-8.
pub fn read_text(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    GzDecoder::new(file).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_gzip_and_comes_back() {
        let text = "{\"a\": 1}".repeat(100);
        let z = gzip(text.as_bytes());
        assert_eq!(&z[..2], [0x1f, 0x8b], "the magic the page checks for");
        assert!(z.len() < text.len() / 5, "{} bytes", z.len());
        let dir = std::env::temp_dir().join(format!("xtask-gz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write(&dir.join("a.gz"), text.as_bytes()).unwrap();
        assert_eq!(read_text(&dir.join("a.gz")).as_deref(), Some(text.as_str()));
        std::fs::write(dir.join("plain"), "not gzip").unwrap();
        assert_eq!(read_text(&dir.join("plain")), None);
        assert_eq!(read_text(&dir.join("missing")), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
