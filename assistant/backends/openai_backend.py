"""``openai`` backend: any OpenAI-compatible chat endpoint, through the official ``openai`` client.

Retries: the client's own. ``openai`` 2.x (``_base_client.py``) retries a failed *request* up to
``max_retries`` times on connection errors, timeouts, 408, 409, 429 and 5xx (or when the server
sends ``x-should-retry: true``), sleeping ``0.5 s * 2**n`` (capped at 8 s, minus up to 25 % jitter)
unless the response carries ``retry-after-ms`` / ``Retry-After`` (seconds or HTTP date) between 0
and 120 s, which it then honours exactly; a Retry-After above 120 s means "do not retry". So we
pass ``settings.openai_max_retries`` to it and write no loop of our own. A stream that fails after
its first bytes is not retried (the caller already has part of the answer): it raises LLMError.

Deadline: ``openai_timeout`` bounds each read, so a server that trickles a token every few seconds
would hold an answer open for ever. ``answer_deadline_s`` bounds the whole answer (retries
included): the request runs in a worker thread, the caller waits on its deltas until the deadline,
then raises LLMError and the worker closes the response at its next delta (or read timeout).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import httpx
import openai
from openai import OpenAI

from assistant.backends.base import DONE, ChatModel, LLMError, Message, drain
from assistant.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_WINDOW = 8_192  # a model llama-index's table does not know (vLLM, Ollama ...): a safe budget

# USD per million tokens (input, output), OpenAI list prices; same prefix matching.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
}


def _lookup(table: dict[str, Any], model: str) -> Any:
    name = model.rsplit("/", 1)[-1].lower()  # "openai/gpt-4o" -> "gpt-4o"
    matches = [key for key in table if name == key or name.startswith(key + "-")]
    return table[max(matches, key=len)] if matches else None


def context_window_for(model: str) -> int:
    """Tokens of prompt plus answer: llama-index's OpenAI model table (dated snapshots and
    "openai/..." names included), else DEFAULT_CONTEXT_WINDOW."""
    from llama_index.llms.openai.utils import openai_modelname_to_contextsize

    try:
        return int(openai_modelname_to_contextsize(model.rsplit("/", 1)[-1]))
    except (ValueError, KeyError):
        return DEFAULT_CONTEXT_WINDOW


def estimate_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for one call at list price, or None for a model without a known price (e.g. local)."""
    prices = _lookup(PRICES_PER_MTOK, model)
    if prices is None:
        return None
    return (prompt_tokens * prices[0] + completion_tokens * prices[1]) / 1_000_000


MAX_SHARED_CLIENTS = 8  # distinct endpoint settings kept open at once (sanity bound: a process uses one or two)
_CLIENTS: OrderedDict[tuple[Any, ...], OpenAI] = OrderedDict()
_CLIENTS_LOCK = threading.Lock()


def shared_client(settings: Settings) -> OpenAI:
    """One ``OpenAI`` client per endpoint setting, shared by every answer of this process (the
    client is thread-safe). The engine makes a chat model per answer; a client per answer held an
    httpx pool and an SSL context each, freed only by the cyclic GC: measured with
    ``python -m evals.experiments.memprofile`` (64 sessions, fake LLM), the app's RSS kept growing by ~6% per
    1,000 questions. Least recently used clients past MAX_SHARED_CLIENTS are dropped, not closed:
    an answer still streaming keeps its own."""
    key = (settings.openai_base_url, settings.openai_api_key or "not-needed", settings.openai_timeout,
           settings.openai_max_retries)
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            client = _CLIENTS[key] = OpenAI(base_url=key[0], api_key=key[1], timeout=key[2], max_retries=key[3])
        _CLIENTS.move_to_end(key)
        while len(_CLIENTS) > MAX_SHARED_CLIENTS:
            _CLIENTS.popitem(last=False)
        return client


class OpenAIChatModel(ChatModel):
    name = "openai"

    def __init__(self, settings: Settings, client: OpenAI | None = None) -> None:
        self.settings = settings
        self.model = settings.openai_model
        self.context_window = context_window_for(self.model)
        self._api_key = settings.openai_api_key or "not-needed"
        self._own_client = client is not None  # a client passed in is closed by close(); the shared one never
        self._client = client or shared_client(settings)
        self.base_url = str(self._client.base_url).rstrip("/")
        self.last_usage: dict[str, Any] = {}  # prompt_tokens, completion_tokens, cost_usd
        self.last_finish_reason: str | None = None
        self._usage_option = True  # ask for a final usage chunk, unless the server refuses it

    def close(self) -> None:
        if self._own_client:
            self._client.close()

    def stream(self, messages: list[Message], *, max_tokens: int, temperature: float = 0.0) -> Iterator[str]:
        self.last_usage, self.last_finish_reason = {}, None
        deadline = time.monotonic() + self.settings.answer_deadline_s
        args = (messages, max_tokens, temperature)
        try:
            try:
                yield from self._until(deadline, *args)
            except openai.BadRequestError as exc:
                if not (self._usage_option and "stream_options" in str(exc.message)):
                    raise
                self._usage_option = False  # an older server: ask once more, without usage
                yield from self._until(deadline, *args)
        except (openai.OpenAIError, httpx.HTTPError, ValueError) as exc:
            if _is_timeout(exc) and time.monotonic() >= deadline:
                # A read capped at the deadline (see _stream) timed out: that is the deadline, and the
                # worker's timeout may win the race with drain()'s own check, so say the same thing.
                raise self._deadline_error() from exc
            raise self._error(exc) from exc
        if self.last_finish_reason is None:
            raise LLMError(
                f"the answer from the OpenAI-compatible server at {self.base_url} was incomplete: "
                "the stream was cut before the model finished (no finish_reason)"
            )

    def _until(self, deadline: float, messages: list[Message], max_tokens: int, temperature: float) -> Iterator[str]:
        """The deltas of one request, run in a worker thread; LLMError once ``deadline`` passes."""
        items: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()

        def work() -> None:
            try:
                for text in self._stream(messages, max_tokens, temperature):
                    items.put(text)
                    if stop.is_set():
                        break  # closes the generator, and with it the HTTP response
            except BaseException as exc:  # handed to the caller's thread
                items.put(exc)
            finally:
                items.put(DONE)

        threading.Thread(target=work, name="openai-stream", daemon=True).start()
        try:
            yield from drain(items, deadline, self._deadline_error)
        finally:
            stop.set()

    def _deadline_error(self) -> LLMError:
        msg = (f"the OpenAI-compatible server at {self.base_url} did not finish the answer within the "
               f"deadline of {self.settings.answer_deadline_s:g} s (answer_deadline_s); stopped waiting")
        log.warning("openai backend: %s", msg)
        return LLMError(msg)

    def _stream(self, messages: list[Message], max_tokens: int, temperature: float) -> Iterator[str]:
        extra: dict[str, Any] = {"stream_options": {"include_usage": True}} if self._usage_option else {}
        if self.settings.answer_deadline_s < self.settings.openai_timeout:  # no read may outlast the answer
            extra["timeout"] = self.settings.answer_deadline_s
        response = self._client.chat.completions.create(
            model=self.model,
            messages=messages,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            temperature=temperature,
            stream=True,
            **extra,
        )
        with response:
            for chunk in response:
                if chunk.usage is not None:
                    self._record_usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                for choice in chunk.choices:
                    if choice.delta is not None and choice.delta.content:
                        yield choice.delta.content
                    if choice.finish_reason:
                        self.last_finish_reason = choice.finish_reason

    def _record_usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.last_usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "cost_usd": estimate_cost(self.model, prompt_tokens, completion_tokens),
        }

    def _redact(self, text: str) -> str:
        key = self.settings.openai_api_key
        return text.replace(key, "***") if key and len(key) >= 4 else text

    def _error(self, exc: Exception) -> LLMError:
        where = f"the OpenAI-compatible server at {self.base_url}"
        if _is_timeout(exc):
            read_s = min(self.settings.openai_timeout, self.settings.answer_deadline_s)
            msg = (f"{where} did not answer within {read_s:g} s (timeout, "
                   f"{self.settings.openai_max_retries} retries); is it overloaded or the model too slow?")
        elif isinstance(exc, openai.APIConnectionError):
            msg = f"could not connect to {where} ({exc.__cause__ or exc}); is it running and reachable?"
        elif isinstance(exc, openai.APIStatusError):
            msg = f"{where} answered HTTP {exc.status_code}: {_detail(exc.body) or exc.message}"
            if exc.status_code == 401:
                msg += " (check the API key: OPENAI_API_KEY)"
            elif exc.status_code == 404:
                msg += f" (is the model {self.model!r} served there, and the URL right?)"
            elif exc.status_code == 429:
                msg += " (rate limited even after retries; try again later)"
        elif isinstance(exc, httpx.HTTPError):
            msg = f"the connection to {where} broke mid-answer, the stream was cut ({exc})"
        elif isinstance(exc, ValueError):  # json.JSONDecodeError, pydantic.ValidationError
            msg = f"{where} sent a malformed response (not valid JSON / SSE): {str(exc)[:200]}"
        elif isinstance(exc, openai.APIError):
            msg = f"{where} reported an error: {exc.message}"
        else:
            msg = f"{where} failed: {type(exc).__name__}: {exc}"
        msg = self._redact(msg)
        log.warning("openai backend: %s", msg)
        return LLMError(msg)


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, openai.APITimeoutError | httpx.TimeoutException)


def _detail(body: object) -> str:
    """The error message of an OpenAI-style error body, else a short excerpt of the body."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        return str(message or "")[:300]
    return str(body or "")[:300]
