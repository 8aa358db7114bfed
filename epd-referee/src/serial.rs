//! Serial lines (§3.2: the referee mediating one pair of programs over
//! two serial lines): a terminal device opened in raw mode at a given
//! baud rate, 8 data bits, no parity, no flow control, reads returning
//! as soon as a byte is there. The records are the same as over TCP, one
//! per line.

use std::fs::File;
use std::io;
use std::path::Path;

/// The baud rates a line can be set to.
pub const BAUD_RATES: [u32; 14] =
    [1200, 2400, 4800, 9600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 500_000, 921_600, 1_000_000, 2_000_000];

/// Opens the terminal device `path` for reading and writing, in raw mode
/// at `baud`. What is already waiting on the line is kept (a client's
/// sign-on sent before the referee opened its end); noise is read as a
/// bad record and answered as one.
///
/// # Errors
/// The device cannot be opened, is not a terminal, or does not take the
/// settings; `baud` is not one of [`BAUD_RATES`]; the platform has no
/// terminal devices.
#[cfg(unix)]
pub fn open_raw(path: &Path, baud: u32) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let speed = speed_of(baud)?;
    let file = std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_NOCTTY).open(path)?;
    let fd = file.as_raw_fd();
    let check = |r: libc::c_int| if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) };
    // SAFETY: `fd` is an open descriptor owned by `file` for the whole
    // block; `t` is a plain struct the calls fill in or read.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        check(libc::tcgetattr(fd, &raw mut t))?;
        libc::cfmakeraw(&raw mut t);
        t.c_cflag |= libc::CLOCAL | libc::CREAD;
        t.c_cflag &= !(libc::CSTOPB | libc::PARENB);
        t.c_cc[libc::VMIN] = 1;
        t.c_cc[libc::VTIME] = 0;
        check(libc::cfsetispeed(&raw mut t, speed))?;
        check(libc::cfsetospeed(&raw mut t, speed))?;
        check(libc::tcsetattr(fd, libc::TCSANOW, &raw const t))?;
    }
    Ok(file)
}

/// Makes reads and writes of `file` return at once when they would
/// wait (for an event loop).
///
/// # Errors
/// The descriptor does not take the flag.
#[cfg(unix)]
pub fn set_nonblocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is open for the duration of the calls (owned by
    // `file`); F_GETFL and F_SETFL take and return plain flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// See the Unix version: there are no terminal devices here.
///
/// # Errors
/// Always.
#[cfg(not(unix))]
pub fn open_raw(path: &Path, _baud: u32) -> io::Result<File> {
    Err(io::Error::new(io::ErrorKind::Unsupported, format!("{}: serial lines need a Unix system", path.display())))
}

#[cfg(unix)]
fn speed_of(baud: u32) -> io::Result<libc::speed_t> {
    Ok(match baud {
        1200 => libc::B1200,
        2400 => libc::B2400,
        4800 => libc::B4800,
        9600 => libc::B9600,
        19_200 => libc::B19200,
        38_400 => libc::B38400,
        57_600 => libc::B57600,
        115_200 => libc::B115200,
        230_400 => libc::B230400,
        #[cfg(any(target_os = "linux", target_os = "android"))]
        460_800 => libc::B460800,
        #[cfg(any(target_os = "linux", target_os = "android"))]
        500_000 => libc::B500000,
        #[cfg(any(target_os = "linux", target_os = "android"))]
        921_600 => libc::B921600,
        #[cfg(any(target_os = "linux", target_os = "android"))]
        1_000_000 => libc::B1000000,
        #[cfg(any(target_os = "linux", target_os = "android"))]
        2_000_000 => libc::B2000000,
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{baud} baud: not a rate a serial line takes (one of {BAUD_RATES:?})"),
            ))
        }
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_terminal_is_refused() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let e = open_raw(f.path(), 9600).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTTY), "{e}");
        assert_eq!(open_raw(f.path(), 12_345).unwrap_err().kind(), io::ErrorKind::InvalidInput);
    }
}
