"""An IP camera on 127.0.0.1 for the camera tests: JPEG frames served over HTTP as
``multipart/x-mixed-replace`` (what such cameras send, and what OpenCV's FFmpeg reads as a
Motion-JPEG stream), at a steady rate, with a tap the test can close to make it stall with the
connection still open, as a hung camera does."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType

import cv2

BOUNDARY = b"frame"


def packets_of(path: str, limit: int = 60) -> list[bytes]:
    """The first ``limit`` compressed frames of a Motion-JPEG video file, as they are stored."""
    cap = cv2.VideoCapture(path, cv2.CAP_FFMPEG)
    assert cap.set(cv2.CAP_PROP_FORMAT, -1), "FFmpeg does not give raw packets"
    out: list[bytes] = []
    try:
        while len(out) < limit:
            ok, packet = cap.read()
            if not ok:
                break
            out.append(packet.tobytes())
    finally:
        cap.release()
    assert out, f"no frames in {path}"
    return out


class MjpegStream:
    """Serves ``packets`` in a loop to each client, ``fps`` a second, while ``flowing`` is set;
    while it is clear, a connected client gets nothing and its connection stays open.
    ``connections`` counts the clients accepted (a reader that reconnected shows here)."""

    def __init__(self, packets: list[bytes], fps: float = 30.0) -> None:
        self.packets = packets
        self.fps = fps
        self.flowing = threading.Event()
        self.flowing.set()
        self.connections = 0
        self.sent = 0
        self._closed = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.1)
        self._clients: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        accept = threading.Thread(target=self._accept, name="mjpeg-accept", daemon=True)
        self._threads.append(accept)
        accept.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}/stream.mjpg"

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._clients.append(client)
            t = threading.Thread(target=self._serve, args=(client,), name="mjpeg-client",
                                 daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, client: socket.socket) -> None:
        with contextlib.suppress(OSError):
            client.recv(65536)  # the request; any path gets the stream
            client.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace;"
                           b"boundary=" + BOUNDARY + b"\r\n\r\n")
            i = 0
            while not self._closed.is_set():
                if not self.flowing.wait(0.05):
                    continue
                packet = self.packets[i % len(self.packets)]
                client.sendall(b"--" + BOUNDARY + b"\r\nContent-Type: image/jpeg\r\n"
                               b"Content-Length: %d\r\n\r\n" % len(packet) + packet + b"\r\n")
                self.sent += 1
                i += 1
                time.sleep(1 / self.fps)

    def close(self) -> None:
        """Stop serving and close every connection (a reader blocked on it returns)."""
        self._closed.set()
        self._server.close()
        self._threads[0].join(5)  # the acceptor first: no client is added after this
        for client in self._clients:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
            client.close()
        for t in self._threads[1:]:
            t.join(5)

    def __enter__(self) -> MjpegStream:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
