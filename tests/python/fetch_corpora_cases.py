"""scripts/fetch-corpora against a local source, good and bad.

    python3 tests/python/fetch_corpora_cases.py SCRIPT CORPORA_DIR

Run by tests/tests/fetch_corpora.rs. It lays the corpora out as the
script's source expects (<base>/<repo>/<commit>/<path>, the ZIP members
zipped) in a temporary folder, fetches them with EPDKIT_CORPORA_BASE
pointing there (file:// URLs, a plain directory, and a small HTTP server
on 127.0.0.1 for cut, stalled and interrupted transfers), and checks that
every failure names its file, exits nonzero and leaves neither a wrong
file under a corpus name nor a temporary file behind. Prints one line per
case; an assertion error says which case failed and why.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import filecmp
import hashlib
import http.server
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple


class Row(NamedTuple):
    name: str
    repo: str
    path: str
    commit: str
    sha256: str
    size: int

    @property
    def source(self) -> str:
        return self.path.split(" (member ", 1)[0]

    @property
    def member(self) -> Optional[str]:
        return self.path.split(" (member ", 1)[1][:-1] if " (member " in self.path else None


def read_lock(lock: Path) -> List[Row]:
    lines = [line for line in lock.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert lines[0].split("\t")[:6] == ["local_name", "source_repo", "path", "commit", "sha256", "bytes"], lines[0]
    rows = []
    for line in lines[1:]:
        c = line.split("\t")
        rows.append(Row(c[0], c[1], c[2], c[3], c[4], int(c[5])))
    return rows


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Fixture:
    def __init__(self, script: Path, corpora: Path, tmp: Path) -> None:
        self.script = script
        self.corpora = corpora
        self.rows = read_lock(script.resolve().parent.parent / "corpora.lock")
        self.src = tmp / "src"
        self.out = tmp / "out"
        for r in self.rows:
            p = self.source_file(r)
            p.parent.mkdir(parents=True, exist_ok=True)
            if r.member is None:
                p.symlink_to(corpora / r.name)
            else:
                with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                    z.write(corpora / r.name, arcname=r.member)
        plain = sorted((r for r in self.rows if r.member is None), key=lambda r: r.size)
        zipped = sorted((r for r in self.rows if r.member is not None), key=lambda r: r.size)
        assert len(plain) >= 2 and zipped, "the cases need two plain files and a ZIP member in corpora.lock"
        # Small files for the failure cases, so each costs little.
        self.victim, self.victim2, self.zipped = plain[0], plain[1], zipped[0]

    def source_file(self, r: Row) -> Path:
        return self.src / r.repo / r.commit / r.source

    def run(self, *args: str, base: Optional[str] = None, **kw: object) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
        env = dict(os.environ, EPDKIT_CORPORA_BASE=base or self.src.as_uri())
        cmd = [sys.executable, str(self.script), *args]
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, **kw)  # type: ignore[call-overload]

    def temps(self) -> List[str]:
        return sorted(p.name for p in self.out.iterdir() if p.name.endswith(".part"))

    def expect_failure(self, case: str, p: subprocess.CompletedProcess, row: Row, *needles: str) -> None:  # type: ignore[type-arg]
        err = p.stderr
        assert p.returncode == 1, f"{case}: exit {p.returncode}, wanted 1\n{err}"
        for n in (row.name, *needles):
            assert n in err, f"{case}: {n!r} not in the message:\n{err}"
        assert not (self.out / row.name).exists(), f"{case}: {row.name} left under its final name"
        assert not self.temps(), f"{case}: temporary files left: {self.temps()}"
        assert "export EPDKIT_CORPORA" not in p.stdout, f"{case}: a failed run printed the export line"
        # Whole again from the good source, for the next case.
        p = self.run(str(self.out))
        assert p.returncode == 0, f"{case}: the run after it failed:\n{p.stderr}"

    def fetch_again(self, row: Row, *args: str, base: Optional[str] = None) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
        """Removes row's file from out (the others stay) and runs the script."""
        (self.out / row.name).unlink(missing_ok=True)
        return self.run(*args, str(self.out), base=base)

    def replace_source(self, row: Row, data: bytes) -> bytes:
        """Writes data as row's source file; returns the old contents."""
        p = self.source_file(row)
        old = p.read_bytes()
        p.unlink()
        p.write_bytes(data)
        return old


def check_out_complete(f: Fixture, case: str) -> None:
    for r in f.rows:
        assert filecmp.cmp(f.out / r.name, f.corpora / r.name, shallow=False), f"{case}: {r.name} differs"
    manifest = (f.out / "MANIFEST.tsv").read_bytes()
    assert manifest == (f.corpora / "MANIFEST.tsv").read_bytes(), f"{case}: MANIFEST.tsv differs from the corpora's"
    assert not f.temps(), f"{case}: temporary files left: {f.temps()}"


def case_good_run(f: Fixture) -> None:
    p = f.run(str(f.out))
    assert p.returncode == 0, f"good run: exit {p.returncode}\n{p.stderr}"
    check_out_complete(f, "good run")
    assert p.stdout == f"export EPDKIT_CORPORA={f.out.resolve()}\n", f"good run: stdout {p.stdout!r}"
    assert f"{len(f.rows)} fetched, 0 already present" in p.stderr, p.stderr


def case_second_run_skips(f: Fixture) -> None:
    before = {r.name: (f.out / r.name).stat().st_mtime_ns for r in f.rows}
    # A source that does not exist: any fetch would fail.
    p = f.run(str(f.out), base=str(f.out.parent / "nowhere"))
    assert p.returncode == 0, f"second run: exit {p.returncode}\n{p.stderr}"
    assert f"0 fetched, {len(f.rows)} already present" in p.stderr, p.stderr
    after = {r.name: (f.out / r.name).stat().st_mtime_ns for r in f.rows}
    assert before == after, "second run: files were rewritten"


def case_check_and_repair(f: Fixture) -> None:
    p = f.run("--check", str(f.out))
    assert p.returncode == 0, f"--check of a good folder: exit {p.returncode}\n{p.stderr}"
    r = f.victim
    bad = b"not the file\n"
    (f.out / r.name).write_bytes(bad)
    p = f.run("--check", str(f.out))
    assert p.returncode == 1, f"--check of a bad file: exit {p.returncode}"
    assert f"{r.name}: expected sha256 {r.sha256} ({r.size} bytes), got {sha(bad)} ({len(bad)} bytes)" in p.stderr, p.stderr
    p = f.run(str(f.out))
    assert p.returncode == 0, f"repair: exit {p.returncode}\n{p.stderr}"
    assert "present but its checksum differs" in p.stderr, p.stderr
    check_out_complete(f, "repair")


def case_corrupt_source(f: Fixture) -> None:
    r = f.victim
    good = (f.corpora / r.name).read_bytes()
    bad = bytes([good[0] ^ 1]) + good[1:]
    old = f.replace_source(r, bad)
    try:
        p = f.fetch_again(r)
    finally:
        f.replace_source(r, old)
    want = f"checksum mismatch: expected sha256 {r.sha256} ({r.size} bytes), got {sha(bad)} ({len(bad)} bytes)"
    f.expect_failure("corrupt source", p, r, want)


def case_truncated_source(f: Fixture) -> None:
    r = f.victim
    half = (f.corpora / r.name).read_bytes()[: r.size // 2]
    old = f.replace_source(r, half)
    try:
        p = f.fetch_again(r)
    finally:
        f.replace_source(r, old)
    f.expect_failure("truncated source", p, r, f"got {sha(half)} ({len(half)} bytes)")


def case_truncated_zip(f: Fixture) -> None:
    r = f.zipped
    whole = f.source_file(r).read_bytes()
    old = f.replace_source(r, whole[: len(whole) // 2])
    try:
        p = f.fetch_again(r)
    finally:
        f.replace_source(r, old)
    f.expect_failure("truncated ZIP", p, r, "not a valid ZIP file", f"member {r.member}")


def case_missing_source(f: Fixture) -> None:
    r = f.victim2
    p = f.source_file(r)
    p.unlink()
    try:
        # The base as a plain directory, not a file:// URL.
        run = f.fetch_again(r, base=str(f.src))
    finally:
        p.symlink_to(f.corpora / r.name)
    f.expect_failure("missing source", run, r, "not found", r.source)


class Server:
    """Serves one file over HTTP, whole, cut short, or stalled half way."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.mode = "whole"
        self.requests = 0
        self.release = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                outer.requests += 1
                mode = outer.mode
                if mode == "cut-once":
                    mode = "cut" if outer.requests == 1 else "whole"
                self.send_response(200)
                self.send_header("Content-Length", str(len(outer.data)))
                self.end_headers()
                if mode == "whole":
                    self.wfile.write(outer.data)
                    return
                self.wfile.write(outer.data[: len(outer.data) // 2])
                self.wfile.flush()
                if mode == "stall":
                    outer.release.wait(60)
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def case_http(f: Fixture) -> None:
    r = f.victim
    srv = Server((f.corpora / r.name).read_bytes())
    try:
        srv.mode = "cut"
        p = f.fetch_again(r, "--retries", "0", base=srv.base)
        f.expect_failure("cut transfer", p, r, f"transfer cut short: {r.size // 2} of {r.size} bytes")
        print("ok: a transfer cut short (HTTP, Content-Length not reached) fails")

        srv.mode, srv.requests = "cut-once", 0
        p = f.fetch_again(r, "--retries", "1", base=srv.base)
        assert p.returncode == 0, f"retry: exit {p.returncode}\n{p.stderr}"
        assert "trying again in 1 s (1/1)" in p.stderr and srv.requests == 2, p.stderr
        assert filecmp.cmp(f.out / r.name, f.corpora / r.name, shallow=False)
        print("ok: a cut transfer is tried again and then succeeds")

        srv.mode = "stall"
        p = f.fetch_again(r, "--retries", "0", "--timeout", "1", base=srv.base)
        f.expect_failure("stalled transfer", p, r, "timed out (no data for 1 s")
        print("ok: a stalled transfer times out")

        for sig, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
            (f.out / r.name).unlink(missing_ok=True)
            env = dict(os.environ, EPDKIT_CORPORA_BASE=srv.base)
            proc = subprocess.Popen(
                [sys.executable, str(f.script), "--retries", "0", str(f.out)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            # Wait until half the file sits in a temporary file in out.
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                parts = [p for p in f.out.iterdir() if p.name.endswith(".part")]
                if parts and any(p.stat().st_size > 0 for p in parts if p.exists()):
                    break
                time.sleep(0.02)
            else:
                proc.kill()
                raise AssertionError(f"{sig.name}: no partial download appeared")
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=20)
            assert proc.returncode == code, f"{sig.name}: exit {proc.returncode}, wanted {code}\n{err}"
            assert f"interrupted by {sig.name} while fetching {r.name}" in err, err
            assert not (f.out / r.name).exists(), f"{sig.name}: a partial file under its final name"
            assert not f.temps(), f"{sig.name}: temporary files left: {f.temps()}"
            print(f"ok: {sig.name} during a download leaves no partial file")
    finally:
        srv.close()


def main() -> None:
    script, corpora = Path(sys.argv[1]), Path(sys.argv[2])
    start = time.monotonic()
    p = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "EPDKIT_CORPORA_BASE" in p.stdout, p
    with tempfile.TemporaryDirectory(prefix="fetch-corpora-") as tmp:
        f = Fixture(script, corpora, Path(tmp))
        cases: List[Tuple[str, object]] = [
            ("a good run fetches and checks every file, ZIP members included", case_good_run),
            ("a second run fetches nothing", case_second_run_skips),
            ("--check finds a bad file; a run replaces it", case_check_and_repair),
            ("a corrupt source fails with both checksums", case_corrupt_source),
            ("a truncated source fails", case_truncated_source),
            ("a truncated ZIP fails", case_truncated_zip),
            ("a missing source is named", case_missing_source),
        ]
        for label, case in cases:
            case(f)  # type: ignore[operator]
            print(f"ok: {label}")
        case_http(f)
        # After all the failures, the folder is whole again.
        (f.out / f.victim.name).unlink(missing_ok=True)
        p = f.run(str(f.out))
        assert p.returncode == 0, p.stderr
        check_out_complete(f, "final run")
        print("ok: the folder is whole after the failures")
    print(f"all cases passed in {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
