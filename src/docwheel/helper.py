"""A helper process for the build: requests in order, replies in order, over its pipes.

The build uses one to analyse sections on a second core while it writes the index. It is a
plain child interpreter (``python -c``) that imports docwheel and runs one serving function,
not a ``multiprocessing`` worker: nothing of the parent's ``__main__`` is re-imported (a
build hook or an unguarded script would run again) and nothing is forked from a process
that may hold threads. Requests and replies are pickled frames; a reader thread drains the
child's replies and a writer thread feeds it the requests, so neither side waits for the
other on a full pipe: a request is queued and the build process goes on with its work.
"""

from __future__ import annotations

import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from .errors import BuildError

_HEAD = 8  # bytes of a frame's length
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])
_CLOSED = object()


def send_frame(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(_HEAD, "little"))
    stream.write(data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """The next frame's object; ``_CLOSED`` at the end of the stream."""
    head = stream.read(_HEAD)
    if len(head) < _HEAD:
        return _CLOSED
    size = int.from_bytes(head, "little")
    data = stream.read(size)
    if len(data) < size:
        return _CLOSED
    return pickle.loads(data)


class HelperProcess:
    """``python -c 'from {module} import {function}; {function}()'`` as a request/reply
    service: ``request`` queues a request and returns its ticket, ``reply(ticket)`` waits
    for its answer. A failure in the child becomes a ``BuildError``."""

    def __init__(self, module: str, function: str, what: str):
        self.what = what
        code = (
            f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r}); "
            f"from {module} import {function}; {function}()"
        )
        self._proc = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._replies: queue.SimpleQueue = queue.SimpleQueue()
        self._answers: dict[int, Any] = {}
        self._sent = self._received = 0
        self._unwanted: set[int] = set()
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._read, name=f"docwheel {what} replies", daemon=True)
        self._writer = threading.Thread(target=self._write, name=f"docwheel {what} requests", daemon=True)
        self._reader.start()
        self._writer.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        try:
            while True:
                reply = read_frame(self._proc.stdout)
                self._replies.put(reply)
                if reply is _CLOSED:
                    return
        except BaseException as exc:  # a damaged frame: the waiting side reports it
            self._replies.put(("error", f"{type(exc).__name__}: {exc}"))

    def _write(self) -> None:
        """Feed the queued requests to the child; ``None`` closes its input. A child that
        stopped reading is reported by the reader's end of stream."""
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            while True:
                obj = self._requests.get()
                if obj is None:
                    break
                send_frame(stdin, obj)
        except OSError:
            pass
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    def request(self, obj: Any, wanted: bool = True) -> int:
        """Queue ``obj`` for the child and return its ticket for ``reply``; never waits.
        The answer to a request not ``wanted`` is dropped (a failure is still raised)."""
        ticket = self._sent
        self._sent += 1
        if not wanted:
            self._unwanted.add(ticket)
        self._requests.put(obj)
        return ticket

    def answered(self, ticket: int) -> bool:
        """True when request ``ticket`` has its reply (``reply`` will not wait)."""
        while ticket not in self._answers and not self._replies.empty():
            self._collect()
        return ticket in self._answers

    def reply(self, ticket: int) -> Any:
        """The reply to request ``ticket`` (the child answers in order; replies to later
        requests that come first are kept for their own ``reply``)."""
        while ticket not in self._answers:
            self._collect()
        return self._answers.pop(ticket)

    def catch_up(self, limit: int) -> None:
        """Wait until at most ``limit`` requests are unanswered (bounds what is queued)."""
        while self._sent - self._received > limit:
            self._collect()

    def _collect(self) -> None:
        got = self._replies.get()
        if got is _CLOSED:
            self._failed("stopped")
        status, value = got
        if status == "error":
            self.close()
            raise BuildError(f"the {self.what} failed: {value}")
        if self._received in self._unwanted:
            self._unwanted.discard(self._received)
        else:
            self._answers[self._received] = value
        self._received += 1

    def _failed(self, how: str) -> None:
        code = self._proc.wait()
        raise BuildError(f"the {self.what} {how} (exit status {code})")

    def close(self, discard: bool = False) -> None:
        """Stop the child: closing its input ends its loop; a child that does not end soon
        (a failure elsewhere left it mid-request) is killed. With ``discard`` (the build
        failed) requests not yet sent are dropped instead of done."""
        while discard:
            try:
                self._requests.get_nowait()
            except queue.Empty:
                break
        self._requests.put(None)
        self._writer.join(timeout=10)
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=10)
        if self._proc.stdout:
            self._proc.stdout.close()


def serve(handle: Callable[[Any], Any]) -> None:
    """The child's side: each request frame on stdin gets ``("ok", handle(request))`` on
    stdout, until stdin closes. A failure is replied as ``("error", message)`` and ends the
    child. Anything the handler prints goes to stderr, never into the frames."""
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    # Ctrl-C reaches the whole process group: the build process stops, and closing our
    # input ends this loop; a traceback from here would only be noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        request = read_frame(requests)
        if request is _CLOSED:
            return
        try:
            reply = ("ok", handle(request))
        except BaseException as exc:
            send_frame(replies, ("error", f"{type(exc).__name__}: {exc}"))
            raise SystemExit(1) from None
        send_frame(replies, reply)
