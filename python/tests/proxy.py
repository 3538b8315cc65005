"""A small HTTP proxy in front of the real service, for the failures a network makes: it forwards every
request and records it, and can, for the next request to a path, either cut the connection in the
middle of the service's answer (after the service acted on it), hold it for a while before passing it
on, or answer 429 with a Retry-After itself (before the service sees it)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    at: float


@dataclass
class Proxy:
    url: str
    seen: list[Seen] = field(default_factory=list)
    #: path -> what to do with its next requests: "cut", ("stall", seconds) or ("429", retry-after)
    faults: dict[str, list[object]] = field(default_factory=dict)

    def cut_next_answer(self, path: str) -> None:
        self.faults.setdefault(path, []).append("cut")

    def stall_next(self, path: str, seconds: float) -> None:
        self.faults.setdefault(path, []).append(("stall", seconds))

    def refuse_next(self, path: str, retry_after: str) -> None:
        self.faults.setdefault(path, []).append(("429", retry_after))

    def requests_to(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path.split("?")[0] == path]


@contextmanager
def start_proxy(upstream: str) -> Iterator[Proxy]:
    forward = httpx.Client(base_url=upstream, timeout=30)
    proxy = Proxy(url="")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def handle_any(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            path = self.path.split("?")[0]
            proxy.seen.append(Seen(self.command, path, {k.lower(): v for k, v in self.headers.items()}, time.monotonic()))
            fault = proxy.faults.get(path, []).pop(0) if proxy.faults.get(path) else None
            if isinstance(fault, tuple) and fault[0] == "stall":
                time.sleep(float(str(fault[1])))
                fault = None
            if isinstance(fault, tuple):
                payload = b'{"error":"RATE_LIMIT_EXCEEDED","message":"slow down (from the test proxy)"}'
                self.send_response(429)
                self.send_header("retry-after", fault[1])
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
            answer = forward.request(self.command, self.path, content=body, headers=headers)
            if fault == "cut":
                # The service has acted; the client gets the status line and half the body, then nothing.
                self.wfile.write(f"HTTP/1.1 {answer.status_code} X\r\ncontent-type: application/json\r\ncontent-length: {len(answer.content)}\r\n\r\n".encode())
                self.wfile.write(answer.content[: len(answer.content) // 2])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.send_response(answer.status_code)
            for key, value in answer.headers.items():
                if key.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding", "date", "server"):
                    self.send_header(key, value)
            self.send_header("content-length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        forward.close()
