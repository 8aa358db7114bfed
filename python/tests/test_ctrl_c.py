"""Ctrl-C within half a second everywhere (issue 45): every `*_text`
verb over 3,000,000 lines, and Engine.uci of a program that never
answers the handshake (/bin/cat: it echoes `uci` back and never says
`uciok`; the handshake would wait 10 s).

Each case runs in a child Python that prints "ready" just before the
call; SIGINT comes half a second later, and the figure is the time from
SIGINT to the child's "KeyboardInterrupt" line (the interpreter's exit,
freeing hundreds of MB of text, is not counted).

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

_CHILD = """
import sys, epdkit
verb = sys.argv[1]
line = '4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id "castle";\\n'
if verb != "uci":
    text = line * 3_000_000
try:
    print("ready", flush=True)
    if verb == "check_text":
        epdkit.check_text(text)
    elif verb == "normalize_text":
        epdkit.normalize_text(text)
    elif verb == "repair_text":
        epdkit.repair_text(text)
    elif verb == "purge_text":
        epdkit.purge_text(text, ["id"])
    elif verb == "select_text":
        epdkit.select_text(text, has="bm")
    elif verb == "uci":
        epdkit.Engine.uci("/bin/cat")
    print("finished", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(3)
"""


@pytest.mark.parametrize(
    "verb", ["check_text", "normalize_text", "repair_text", "purge_text", "select_text", "uci"]
)
def test_ctrl_c_within_half_a_second(verb: str) -> None:
    if verb == "uci" and not os.access("/bin/cat", os.X_OK):
        pytest.skip("no /bin/cat")
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, verb], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready", proc.communicate()
        time.sleep(0.5)
        assert proc.poll() is None, f"{verb} ended before SIGINT: {proc.communicate()}"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        said = proc.stdout.readline().strip()
        took = time.monotonic() - sent
        out, err = proc.communicate(timeout=60)
        assert said == "KeyboardInterrupt" and proc.returncode == 3, (said, out, err)
        assert took < 0.5, f"{verb}: KeyboardInterrupt {took:.2f} s after SIGINT"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
