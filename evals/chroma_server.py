"""A real Chroma server: ``chroma run`` on 127.0.0.1 in a subprocess (tests and benchmarks).

``ChromaServer(path).start()`` picks a free port, starts the server and waits until its heartbeat
answers; ``stop()``, ``restart()`` (same port, same data), ``pause()``/``resume()`` (SIGSTOP/SIGCONT:
a hung server).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from evals.net import free_port

START_TIMEOUT_S = 60.0


def chroma_executable() -> str | None:
    """The ``chroma`` CLI next to this interpreter (the venv), else on PATH."""
    local = Path(sys.executable).parent / "chroma"
    return str(local) if local.exists() else shutil.which("chroma")


class ChromaServer:
    def __init__(self, path: Path, port: int | None = None, host: str = "127.0.0.1") -> None:
        self.path = Path(path)
        self.host = host
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.path.parent / f"chroma-server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def alive(self) -> bool:
        """True when the heartbeat endpoint answers 200 within a second."""
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1.0) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def start(self, timeout: float = START_TIMEOUT_S) -> ChromaServer:
        exe = chroma_executable()
        if exe is None:
            raise RuntimeError("the `chroma` CLI is not installed (pip install chromadb)")
        self.path.mkdir(parents=True, exist_ok=True)
        log = open(self.log, "ab")  # noqa: SIM115 - the child keeps writing to it
        self.proc = subprocess.Popen(
            [exe, "run", "--host", self.host, "--port", str(self.port), "--path", str(self.path)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {self.proc.returncode}: {self.tail()}")
            if self.alive():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"chroma run did not answer within {timeout:.0f} s: {self.tail()}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        self._signal(proc, signal.SIGCONT)  # a paused server cannot handle SIGTERM
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def restart(self) -> ChromaServer:
        self.stop()
        for _ in range(50):  # the port can linger for a moment after the old process exits
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    s.bind((self.host, self.port))
                break
            except OSError:
                time.sleep(0.1)
        return self.start()

    def pause(self) -> None:
        """Freeze the server (it accepts connections but never answers)."""
        assert self.proc is not None
        self._signal(self.proc, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self._signal(self.proc, signal.SIGCONT)

    @staticmethod
    def _signal(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass

    def tail(self, n: int = 2000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""
