"""The packaged local model served by a REAL llama.cpp OpenAI-compatible server on 127.0.0.1
(xllamacpp's ``Server`` listening on TCP): what the ``openai`` backend is tested and evaluated
against without a network.

    python -m evals.llama_server --port 8089        # serves until Ctrl-C
    OPENAI_BASE_URL=http://127.0.0.1:8089/v1 OPENAI_API_KEY=local \\
        ASSISTANT_OPENAI_MODEL=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        assistant eval --dataset generated --backend openai --limit 24
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from assistant.backends import local
from assistant.settings import Settings
from evals.net import free_port


@contextmanager
def llama_server(settings: Settings | None = None, port: int | None = None) -> Iterator[str]:
    """Serve the packaged model on 127.0.0.1:<port>; yields the ``/v1`` base URL."""
    settings = settings or Settings()
    xlc = local._import_xllamacpp()
    params = xlc.CommonParams()
    params.model.path = str(local.ensure_model(settings))
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = local.threads_for(settings)
    params.n_ctx, params.n_parallel, params.warmup = settings.local_context, 1, False  # as the local backend
    params.hostnames, params.port = ["127.0.0.1"], port or free_port()
    params.offline, params.ui, params.verbosity = True, False, 0
    server: Any = xlc.Server(params)
    try:
        yield f"http://127.0.0.1:{params.port}/v1"
    finally:
        del server


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.llama_server", description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=None, help="TCP port on 127.0.0.1 (default: a free one)")
    args = ap.parse_args(argv)
    with llama_server(port=args.port) as url:
        print(f"llama.cpp server for {local.MODEL_FILE} at {url} (Ctrl-C stops it)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
