"""An OpenAI-compatible HTTP server for tests.

Point the real ``openai`` client at ``FakeOpenAI.base_url`` and script what it answers::

    with FakeOpenAI() as fake:
        fake.script(Reply.text("not json"), Reply.json({"aiTasks": []}))
        client = OpenAI(api_key="test-key", base_url=fake.base_url, max_retries=0)
        ...
        assert fake.requests[0]["temperature"] == 0.3
        assert fake.request_headers[0]["authorization"] == "Bearer test-key"

As a pytest fixture::

    @pytest.fixture
    def fake_openai():
        with FakeOpenAI() as fake:
            yield fake

Replies are consumed in order; once the script is exhausted every request gets ``default``
(a valid analysis, see ``VALID_ANALYSIS``). Each request is recorded *before* it is answered,
including requests whose reply is an error or a slow reply the client gave up on.
"""

from __future__ import annotations

import copy
import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODERATION_PATHS = ("/v1/moderations", "/moderations")
# Every category of omni-moderation-latest, with the provider's own key names.
MODERATION_CATEGORIES = (
    "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit",
    "illicit/violent", "self-harm", "self-harm/intent", "self-harm/instructions", "sexual",
    "sexual/minors", "violence", "violence/graphic",
)
MODERATION_THRESHOLD = 0.5
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_USAGE = (120, 80)
# serve_forever checks for shutdown this often; the stdlib default (0.5 s) makes every stop() slow.
POLL_INTERVAL_S = 0.05
# How long stop() waits for the serving thread; handlers are daemon threads and never joined.
STOP_JOIN_TIMEOUT_S = 5.0

VALID_ANALYSIS: dict[str, Any] = {
    "aiTasks": [
        {
            "id": 1,
            "title": "Send sleep hygiene handout",
            "description": "Share the CBT-I sleep hygiene handout discussed in session.",
            "assignee": "therapist",
            "icon": "file-text",
            "priority": "medium",
            "estimatedTime": "10 min",
        },
        {
            "id": 2,
            "title": "Schedule follow-up",
            "description": "Book a follow-up session in two weeks.",
            "assignee": "front desk",
            "icon": "calendar",
            "priority": "high",
            "estimatedTime": "5 min",
        },
    ],
    "visitSummary": {
        "topicsDiscussed": ["Sleep difficulties", "Work stress"],
        "keyFindings": ["PHQ-9 score 14, moderate depressive symptoms"],
        "decisionsMade": ["Start behavioural activation"],
        "nextSteps": ["Follow up in two weeks"],
    },
    "differentialDiagnoses": ["Major depressive disorder, moderate", "Adjustment disorder"],
    "riskAssessment": {
        "level": "low",
        "summary": "Denies suicidal ideation; protective factors present.",
        "factors": ["Supportive partner", "Engaged in treatment"],
    },
    "clinicalFindings": ["Low mood", "Initial insomnia"],
    "treatmentPlan": ["Weekly CBT sessions", "Behavioural activation"],
    "recommendations": ["Sleep diary for two weeks"],
}


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with the class methods rather than the constructor."""

    status_code: int = HTTPStatus.OK
    content: str | None = None
    body: Any = None
    model: str = DEFAULT_MODEL
    usage: tuple[int, int] = DEFAULT_USAGE
    delay_s: float = 0.0
    then: Reply | None = None
    raw: bytes | None = None  # sent as it is, with ``content_type``
    content_type: str = "application/json"
    trickle: tuple[int, float] | None = None  # (pieces, seconds between them)
    headers: tuple[tuple[str, str], ...] = ()  # sent with a status answer (Retry-After)

    @classmethod
    def json(
        cls, obj: Any, model: str = DEFAULT_MODEL, usage: tuple[int, int] = DEFAULT_USAGE
    ) -> Reply:
        """A chat completion whose message content is ``obj`` serialised as JSON."""
        return cls(content=json.dumps(obj), model=model, usage=usage)

    @classmethod
    def text(
        cls, content: str, model: str = DEFAULT_MODEL, usage: tuple[int, int] = DEFAULT_USAGE
    ) -> Reply:
        """A chat completion with raw message content, e.g. malformed or fenced JSON."""
        return cls(content=content, model=model, usage=usage)

    @classmethod
    def status(cls, status_code: int, body: Any = None,
               headers: dict[str, str] | None = None) -> Reply:
        """A raw HTTP answer, usually an error. ``body`` is sent as JSON (str bodies as plain
        text); by default an OpenAI-style error object. ``status(200, "garbage")`` yields a
        successful response that is not a chat completion."""
        if body is None:
            body = {
                "error": {
                    "message": f"scripted HTTP {status_code}",
                    "type": "server_error",
                    "code": None,
                }
            }
        return cls(status_code=status_code, body=body, headers=tuple((headers or {}).items()))

    @classmethod
    def moderation(cls, scores: dict[str, float] | None = None) -> Reply:
        """A moderation result, scores keyed by the provider's category names (e.g.
        ``{"self-harm/intent": 0.9}``); unnamed categories score 0.001 and a category is
        flagged above 0.5, as the provider does."""
        return cls(body=moderation_response(scores or {}))

    @classmethod
    def raw_body(cls, body: bytes, content_type: str = "application/json",
                 status_code: int = HTTPStatus.OK) -> Reply:
        """These bytes as the body, under this Content-Type: a broken server or proxy
        (an empty body, an HTML page, JSON cut short, each labelled JSON)."""
        return cls(status_code=status_code, raw=body, content_type=content_type)

    @classmethod
    def trickled(cls, pieces: int, gap_s: float, then: Reply | None = None) -> Reply:
        """``then`` (the server default when None) with its Content-Length sent at once and
        its body in ``pieces`` parts, ``gap_s`` apart: each gap shorter than a read timeout,
        the whole longer than the call's."""
        return cls(trickle=(pieces, gap_s), then=then)

    @classmethod
    def slow(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Sleep ``seconds`` before answering with ``then`` (the server default when None)."""
        return cls(delay_s=seconds, then=then)


def chat_completion(reply: Reply, completion_id: str) -> dict[str, Any]:
    """A real ``chat.completion`` object, complete enough for the openai client to parse."""
    prompt_tokens, completion_tokens = reply.usage
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def moderation_response(scores: dict[str, float], model: str = "omni-moderation-latest"
                        ) -> dict[str, Any]:
    """A real moderation object (``results[0]`` with ``flagged``, ``categories``,
    ``category_scores`` and ``category_applied_input_types``)."""
    unknown = set(scores) - set(MODERATION_CATEGORIES)
    if unknown:
        raise ValueError(f"not a moderation category: {sorted(unknown)}")
    category_scores = {name: float(scores.get(name, 0.001)) for name in MODERATION_CATEGORIES}
    categories = {name: score > MODERATION_THRESHOLD for name, score in category_scores.items()}
    return {
        "id": f"modr-fake-{int(time.time() * 1000)}",
        "model": model,
        "results": [{
            "flagged": any(categories.values()),
            "categories": categories,
            "category_scores": category_scores,
            "category_applied_input_types": {name: ["text"] for name in MODERATION_CATEGORIES},
        }],
    }


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        fake = self.server.fake
        body = self._read_body()
        moderation = self.path in MODERATION_PATHS
        if self.path not in CHAT_PATHS and not moderation:
            self._send_json(HTTPStatus.NOT_FOUND, {"error": {"message": "unknown path"}})
            return
        fake._record(self.path, body, dict(self.headers.items()))
        reply = fake._next_reply(moderation)
        if reply.raw is not None:
            self._send(reply.status_code, reply.raw, reply.content_type)
            return
        if reply.trickle is not None:
            self._trickle(reply, moderation)
            return
        while reply.delay_s:
            if fake._stopping.wait(reply.delay_s):
                return  # stop() was called: drop the connection instead of answering
            reply = reply.then or (fake.moderation_default if moderation else fake.default)
        if reply.body is not None:
            self._send_body(reply)
            return
        self._send_json(HTTPStatus.OK, chat_completion(reply, fake._completion_id()))

    def _trickle(self, reply: Reply, moderation: bool) -> None:
        fake = self.server.fake
        then = reply.then or (fake.moderation_default if moderation else fake.default)
        payload = json.dumps(then.body if then.body is not None
                             else chat_completion(then, fake._completion_id())).encode()
        pieces, gap_s = reply.trickle
        size = -(-len(payload) // pieces)
        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            for start in range(0, len(payload), size):
                self.wfile.write(payload[start:start + size])
                self.wfile.flush()
                if start + size < len(payload) and fake._stopping.wait(gap_s):
                    return
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up on it

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return {"_raw": raw.decode("utf-8", errors="replace")}

    def _send_body(self, reply: Reply) -> None:
        if isinstance(reply.body, str):
            self._send(reply.status_code, reply.body.encode(), "text/plain", reply.headers)
        else:
            self._send(reply.status_code, json.dumps(reply.body).encode(), "application/json",
                       reply.headers)

    def _send_json(self, status_code: int, payload: Any) -> None:
        self._send(status_code, json.dumps(payload).encode(), "application/json")

    def _send(self, status_code: int, payload: bytes, content_type: str,
              headers: tuple[tuple[str, str], ...] = ()) -> None:
        try:
            self.send_response(status_code)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. its timeout fired); nothing left to tell it

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet; requests are inspected through FakeOpenAI.requests."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Handler threads may be sleeping on a slow reply; never wait for them on close.
    block_on_close = False

    def __init__(self, fake: FakeOpenAI) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake


class FakeOpenAI:
    """Threaded http.server on 127.0.0.1, random port. Serves POST /v1/chat/completions (and
    /chat/completions) with scripted replies, and POST /v1/moderations with its own script
    (``script_moderation``; by default nothing flagged). Records every request (parsed JSON
    body + headers), both kinds in one list.

    Attributes:
        base_url: e.g. "http://127.0.0.1:PORT/v1"; set by start().
        requests: recorded JSON request bodies, in arrival order.
        request_headers: recorded headers for each request, names lower-cased.
        request_paths: recorded URL path for each request.
        default: the reply used when the script is empty (a valid analysis).
    """

    def __init__(self) -> None:
        self.base_url = ""
        self.default = Reply.json(VALID_ANALYSIS)
        self.moderation_default = Reply.moderation()
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.request_paths: list[str] = []
        self._script: deque[Reply] = deque()
        self._moderation_script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FakeOpenAI:
        """Bind a free port and serve in a daemon thread. Returns self for chaining."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        host, port = self._server.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": POLL_INTERVAL_S},
            name="fake-openai",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port; sleeping slow replies are woken and dropped."""
        if self._server is None:
            return
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(STOP_JOIN_TIMEOUT_S)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order before falling back to ``default``."""
        with self._lock:
            self._script.extend(replies)

    def script_moderation(self, *replies: Reply) -> None:
        """Queue answers to POST /v1/moderations (``Reply.moderation`` or ``Reply.status``)."""
        with self._lock:
            self._moderation_script.extend(replies)

    def reset(self) -> None:
        """Forget recorded requests, queued replies and any custom default."""
        with self._lock:
            self._script.clear()
            self._moderation_script.clear()
            self.moderation_default = Reply.moderation()
            self.requests.clear()
            self.request_headers.clear()
            self.request_paths.clear()
            self.default = Reply.json(VALID_ANALYSIS)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been used yet."""
        with self._lock:
            return len(self._script)

    def _record(self, path: str, body: Any, headers: dict[str, str]) -> None:
        with self._lock:
            self.request_paths.append(path)
            self.requests.append(body)
            self.request_headers.append({name.lower(): value for name, value in headers.items()})

    def _next_reply(self, moderation: bool = False) -> Reply:
        with self._lock:
            if moderation:
                return self._moderation_script.popleft() if self._moderation_script \
                    else self.moderation_default
            return self._script.popleft() if self._script else self.default

    def _completion_id(self) -> str:
        with self._lock:
            return f"chatcmpl-fake-{next(self._ids)}"


def fresh_analysis() -> dict[str, Any]:
    """A deep copy of VALID_ANALYSIS that a test may modify freely."""
    return copy.deepcopy(VALID_ANALYSIS)
