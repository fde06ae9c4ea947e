//! Input files read with a bound: a path that names `/dev/zero`, a FIFO or
//! a runaway log is refused at a size no real input reaches, with the
//! file's name, instead of filling memory.

use std::io::{self, BufRead, Read};
use std::path::Path;

/// The most bytes read of a configuration file (`check-config FILE`,
/// `serve --config`, `/admin/reload`): the shipped `engines.toml` is a few
/// tens of KB.
pub const MAX_CONFIG_BYTES: u64 = 8 << 20;

/// The most bytes read of one lab data, queries or synthesis file
/// (`lab --data`): the largest real data set is ~10 MB.
pub const MAX_DATA_BYTES: u64 = 64 << 20;

/// The longest line `metasift dedup` reads (its input is a stream of any
/// length, so the bound is per record): an engine answer's own cap.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// The text of `path`, refused (an [`io::ErrorKind::InvalidData`] error
/// naming the limit) past `max` bytes; invalid UTF-8 is an error as with
/// [`std::fs::read_to_string`].
pub fn read_capped(path: &Path, max: u64) -> io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

fn too_large(max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("larger than {max} bytes, the most read of such a file (is it the right file?)"),
    )
}

/// A reader that fails, naming the line, as soon as a line grows past
/// `max` bytes (`/dev/zero` has no line ends at all); the caller puts the
/// file's name in front, as it does for every error of the file.
#[derive(Debug)]
pub struct LineCap<R> {
    inner: R,
    max: usize,
    /// Bytes of the current line read so far, and lines ended before it.
    line_len: usize,
    lines: u64,
}

impl<R> LineCap<R> {
    /// `inner`, read through the bound.
    pub fn new(inner: R, max: usize) -> Self {
        LineCap {
            inner,
            max,
            line_len: 0,
            lines: 0,
        }
    }

    /// Counts `read` (bytes just read); the error when a line is too long.
    fn count(&mut self, read: &[u8]) -> io::Result<()> {
        let mut rest = read;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.check(self.line_len + i)?;
            self.line_len = 0;
            self.lines += 1;
            rest = &rest[i + 1..];
        }
        self.line_len += rest.len();
        self.check(self.line_len)
    }

    fn check(&self, len: usize) -> io::Result<()> {
        if len <= self.max {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "line {} is longer than {} bytes, the most read of one record (is it the right file?)",
                self.lines + 1,
                self.max
            ),
        ))
    }
}

impl<R: Read> Read for LineCap<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count(&buf[..n])?;
        Ok(n)
    }
}

/// A buffered reader over `inner` (a file, stdin) with the line bound
/// [`MAX_LINE_BYTES`].
pub fn line_capped<R: Read + Send>(inner: R, capacity: usize) -> impl BufRead + Send {
    io::BufReader::with_capacity(capacity, LineCap::new(inner, MAX_LINE_BYTES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_past_the_cap_is_refused_and_one_within_is_read() {
        let dir = std::env::temp_dir().join(format!("metasift-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.txt");
        std::fs::write(&p, "0123456789").unwrap();
        assert_eq!(read_capped(&p, 10).unwrap(), "0123456789");
        let e = read_capped(&p, 9).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("larger than 9 bytes"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn dev_zero_stops_at_the_cap() {
        let zero = Path::new("/dev/zero");
        if !zero.exists() {
            return;
        }
        let e = read_capped(zero, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("larger than"), "{e}");
        let mut r = line_capped(std::fs::File::open(zero).unwrap(), 1 << 16);
        let mut buf = Vec::new();
        let e = r.read_until(b'\n', &mut buf).unwrap_err();
        assert!(e.to_string().starts_with("line 1 is longer than"), "{e}");
        assert!(buf.len() <= MAX_LINE_BYTES + (1 << 16));
    }

    #[test]
    fn lines_within_the_cap_pass_and_the_long_one_is_named() {
        let text = b"short\nshort too\n0123456789abc\nx\n";
        let mut r = io::BufReader::with_capacity(4, LineCap::new(&text[..], 12));
        let mut lines = Vec::new();
        let err = loop {
            let mut buf = Vec::new();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) => break None,
                Ok(_) => lines.push(buf),
                Err(e) => break Some(e),
            }
        };
        assert_eq!(lines.len(), 2);
        let e = err.expect("the third line is too long");
        assert!(e.to_string().starts_with("line 3 is longer than 12"), "{e}");
    }
}
