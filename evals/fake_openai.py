"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and evaluations (no pytest here:
the ``fake_openai`` fixture is in tests/fake_openai.py).

Chat answers come from a thread-safe queue (``enqueue``, ``enqueue_fault``; ``trickle`` streams one
word every ``interval`` seconds, as a slow or stuck server can), else, for a
prompt with sources, the first sentence of source 1's excerpt cited [1] (a real model's plainest
answer: it passes verification, and differs by prompt), otherwise ``"Answer: "`` + the first 12
words of the last user message. Embeddings: 64-dim hashed bags of
lowercase words, L2-normalised. Streams use chunked transfer encoding, as real servers do.

With ``mixing`` set, a prompt with at least two sources is answered as a model that mixes up its
sources (``mixing_answer``): one right sentence of source 1 (A), a sentence of source 2 (B) with
B's name replaced by A's, another of B's sentences, and one of A's sentences with a number of
B's, all cited [1]; ``mixed`` records each answer's sentences by kind.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import math
import random
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "hang", "cut", "malformed", "trickle")
EMBED_DIM = 64


class RecordedRequest(dict[str, Any]):
    """A received JSON body (empty for GET), with ``.path``, ``.method`` and ``.headers``."""

    def __init__(self, body: dict[str, Any], path: str, method: str, headers: dict[str, str]):
        super().__init__(body)
        self.path, self.method, self.headers = path, method, headers


_EXCERPT = re.compile(r'<source id="1">.*?Excerpt:(.*?)</source>', re.S)


def default_answer(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    last = users[-1].get("content") if users else ""
    if isinstance(last, list):  # content parts: [{"type": "text", "text": ...}]
        last = " ".join(str(p.get("text", "")) for p in last if isinstance(p, dict))
    excerpt = _EXCERPT.search(str(last or ""))
    if excerpt:  # a sources prompt: quote the first source's first excerpt sentence, as a model would
        first = re.split(r"(?<=[.!?])\s", " ".join(excerpt.group(1).split()), maxsplit=1)[0]
        return f"{first} [1]"
    return "Answer: " + " ".join(str(last or "").split()[:12])


_SOURCE = re.compile(r'<source id="(\d+)">\s*Paper:(.*?)\n\s*Excerpt:(.*?)</source>', re.S)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if len(s.split()) >= 6]


def mixing_answer(body: dict[str, Any]) -> list[tuple[str, str]] | None:
    """(kind, sentence) of a mixed-up answer to a prompt with two sources or more, after
    ("label", source 1's label): ``right`` (A's
    first sentence), ``renamed`` (a sentence of B naming a name A does not, that name replaced by
    one of A's), ``other`` (another sentence of B, verbatim), ``number`` (a sentence of A with a
    number replaced by one of B's that A does not state); None for other prompts."""
    from assistant.verify import attribution
    from evals.misattribution import number_swap, replace_name

    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    found = {int(n): (label.strip(), text) for n, label, text in _SOURCE.findall(str(users[-1].get("content", "")) if users else "")}
    if 1 not in found or 2 not in found:
        return None
    (label_a, a), (_, b) = found[1], found[2]
    sa, sb = _sentences(a), _sentences(b)
    if not sa or not sb:
        return None
    out = [("label", label_a), ("right", sa[0])]
    names_a = [n for n in attribution.claim_names(label_a + ". " + a) if not attribution.occurs(n, b)]
    used = None
    for s in sb:
        theirs = [n for n in attribution.claim_names(s) if not attribution.occurs(n, a)]
        if names_a and theirs and (swapped := replace_name(s, theirs[0], names_a[0])):
            out.append(("renamed", swapped))
            used = s
            break
    rest = [s for s in sb if s != used]
    if rest:
        out.append(("other", rest[len(rest) // 2]))
    for s in sa[1:] + sa[:1]:
        if attribution.number_mentions(s) and (swapped := number_swap(s, b, a, random.Random(s))):
            out.append(("number", swapped))
            break
    return out


def embed(text: str) -> list[float]:
    vec = [0.0] * EMBED_DIM
    for word in re.findall(r"\w+", text.lower()):
        vec[int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little") % EMBED_DIM] += 1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else [1.0] + [0.0] * (EMBED_DIM - 1)


class FakeOpenAI(ThreadingHTTPServer):
    """The server itself; ``close()`` hangs up on open connections and joins every thread."""

    daemon_threads, block_on_close = False, True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self._lock = threading.Lock()
        self._queue: deque[tuple[str, dict[str, Any]]] = deque()
        self._conns: set[socket.socket] = set()
        self.requests: list[RecordedRequest] = []
        self.delay = 0.0  # seconds to sleep before each chat answer
        self.mixing = False  # answer prompts with sources as a model that mixes them up (mixing_answer)
        self.mixed: list[dict[str, Any]] = []  # each mixed answer: {"a": source 1's label, "sentences": [(kind, sentence)]}
        self.stopping = threading.Event()
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def enqueue(self, text: str) -> None:
        with self._lock:
            self._queue.append(("text", {"text": text}))

    def enqueue_fault(self, kind: str, **kw: Any) -> None:
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; choose one of {FAULTS}")
        with self._lock:
            self._queue.append((kind, kw))

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in list(self.requests) if r.path.endswith("/chat/completions")]

    def record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def pop(self) -> tuple[str, dict[str, Any]] | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        with self._lock:
            self._conns.add(conn)
        return conn, addr

    def shutdown_request(self, request: Any) -> None:
        with self._lock:
            self._conns.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up (timeouts, cut streams) are expected here

    def close(self) -> None:
        self.stopping.set()  # wakes "hang" and .delay sleepers
        self.shutdown()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:  # unblock handlers waiting on keep-alive reads
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self.server_close()  # joins the handler threads
        self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeOpenAI

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None, *, length: int = -1) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw) if length < 0 else length))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)

    def _sse(self, events: list[Any], *, end: bool = True, interval: float = 0.0) -> None:
        """Stream ``events`` as SSE ``data:`` lines, one every ``interval`` s (a trickling server);
        ``end=False`` hangs up mid-body instead of ending it. Stops when the client hangs up or
        the server closes."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            raw = ("data: " + (event if isinstance(event, str) else json.dumps(event)) + "\n\n").encode()
            try:
                self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
                self.wfile.flush()
            except OSError:  # the client gave up
                self.close_connection = True
                return
            if interval and self.server.stopping.wait(interval):
                return
        if end:
            self.wfile.write(b"0\r\n\r\n")
        else:
            self._hang_up()

    def _hang_up(self) -> None:
        self.close_connection = True
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)

    def _fail(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._send(status, {"error": {"message": message, "type": "fake_error", "code": status}}, headers)

    def do_GET(self) -> None:
        self.server.record(RecordedRequest({}, self.path, "GET", dict(self.headers)))
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._fail(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._fail(400, "request body is not a JSON object")
            return
        self.server.record(RecordedRequest(body, self.path, "POST", dict(self.headers)))
        if self.path.endswith("/chat/completions"):
            self._chat(body)
        elif self.path.endswith("/embeddings"):
            self._embeddings(body)
        else:
            self._fail(404, f"no route POST {self.path}")

    def _embeddings(self, body: dict[str, Any]) -> None:
        inputs = body.get("input", "")
        if isinstance(inputs, str) or (inputs and isinstance(inputs[0], int)):
            inputs = [inputs]  # one string, or one list of token ids
        texts = [t if isinstance(t, str) else " ".join(map(str, t)) for t in inputs]
        vecs: list[Any] = [embed(t) for t in texts]
        if body.get("encoding_format") == "base64":  # the openai client's default
            vecs = [base64.b64encode(struct.pack(f"<{len(v)}f", *v)).decode() for v in vecs]
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vecs)]
        n = sum(len(t.split()) for t in texts)
        usage = {"prompt_tokens": n, "total_tokens": n}
        self._send(200, {"object": "list", "data": data, "model": body.get("model", "fake-model"), "usage": usage})

    def _chat(self, body: dict[str, Any]) -> None:
        fake = self.server
        if fake.delay and fake.stopping.wait(fake.delay):
            return
        kind, kw = fake.pop() or ("text", {})
        mixed = mixing_answer(body) if fake.mixing and "text" not in kw else None
        if mixed:
            with fake._lock:
                fake.mixed.append({"a": mixed[0][1], "sentences": mixed[1:]})
        text = str(kw["text"]) if "text" in kw else (" ".join(f"{s} [1]" for _, s in mixed[1:]) if mixed else default_answer(body))
        if kind in ("429", "500"):
            status = 429 if kind == "429" else int(kw.get("status", 500))
            headers = {"Retry-After": "0"} if kind == "429" else {}
            for header, key in (("Retry-After", "retry_after"), ("retry-after-ms", "retry_after_ms")):
                if key in kw:
                    headers[header] = str(kw[key])
            self._fail(status, kw.get("message", f"fake {kind} error"), headers)
        elif kind == "hang" and fake.stopping.wait(float(kw.get("seconds", 5))):
            pass  # the fixture is tearing down
        elif kind == "trickle":
            self._sse([*_stream_chunks(body, text), "[DONE]"], interval=float(kw.get("interval", 0.05)))
        elif kind == "malformed" and body.get("stream"):
            self._sse(["{this is not json"])
        elif kind == "malformed":
            self._send(200, b'{"id": "chatcmpl-fake", "choices": [')
        elif kind == "cut" and not body.get("stream"):  # promise more bytes than are sent
            payload = json.dumps(_completion(body, text)).encode()
            self._send(200, payload[: len(payload) // 2], length=len(payload))
            self._hang_up()
        elif kind == "cut":  # some deltas, then no finish_reason nor [DONE]; graceful: clean EOF
            chunks = [c for c in _stream_chunks(body, text) if c["choices"] and not c["choices"][0]["finish_reason"]]
            self._sse(chunks[: max(2, len(chunks) // 2)], end=bool(kw.get("graceful", False)))
        elif body.get("stream"):
            self._sse([*_stream_chunks(body, text), "[DONE]"])
        else:
            self._send(200, _completion(body, text))


def _usage(body: dict[str, Any], text: str) -> dict[str, int]:
    prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    completion = len(text.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake-model"), "choices": [choice], "usage": _usage(body, text)}


def _stream_chunks(body: dict[str, Any], text: str) -> Iterator[dict[str, Any]]:
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": body.get("model", "fake-model")}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in re.findall(r"\s*\S+(?:\s+\Z)?", text) or [text]:  # a word (and its leading space) each
        yield chunk({"content": piece})
    yield chunk({}, "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {**base, "choices": [], "usage": _usage(body, text)}
