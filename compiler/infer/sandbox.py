"""Render chat templates (untrusted code from the Hub) in a separate process.

The worker compiles each template with transformers' own sandboxed Jinja
environment (`chat_template_utils._compile_jinja_template`, what
`apply_chat_template` uses) and streams the output so that a render that
grows past `MAX_OUTPUT` characters stops. The parent gives every render
`timeout` seconds and kills the worker when it runs over (a loop); the worker
runs under an address-space limit so that an exploding string fails inside it.
Run as `python -m compiler.infer.sandbox` it is the worker (JSON lines on stdin).
"""

from __future__ import annotations

import datetime
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

MAX_OUTPUT = 400_000  # characters per render
MEMORY_LIMIT = 3 << 30  # bytes of address space for the worker
DEFAULT_TIMEOUT = 10.0  # seconds per render
STARTUP_TIMEOUT = 120.0  # seconds for the worker to import transformers
FIXED_NOW = datetime.datetime(2026, 1, 15, 12, 0, 0)  # what strftime_now renders


class RenderError(Exception):
    """A render that failed; `kind` is one of syntax, raised, sandbox, explode, loop, render."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        labels = {
            "syntax": "the chat template does not compile",
            "raised": "the chat template raised an error",
            "sandbox": "the chat template tried to reach outside the sandbox",
            "explode": f"the render grew past {MAX_OUTPUT} characters (or ran out of memory)",
            "loop": "the render did not finish in time (a loop?)",
            "render": "the chat template does not render",
        }
        return f"{labels.get(self.kind, self.kind)}: {self.message}"


class Renderer:
    """Renders conversations through one chat template, in a worker process."""

    def __init__(
        self, chat_template: str, *, bos_token: str = "", eos_token: str = "", timeout: float = DEFAULT_TIMEOUT
    ):
        self.chat_template = chat_template
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.timeout = timeout
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._cache: dict[str, str | RenderError] = {}
        self.count = 0

    def _start(self) -> None:
        root = Path(__file__).resolve().parents[2]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
        env["TRANSFORMERS_VERBOSITY"] = "error"
        env["HF_HUB_OFFLINE"] = "1"
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "compiler.infer.sandbox"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
            encoding="utf-8",
        )
        self._lines = queue.Queue()
        proc, lines = self._proc, self._lines
        threading.Thread(
            target=lambda: [lines.put(line) for line in proc.stdout] + [lines.put(None)], daemon=True
        ).start()
        # The time limit is per render: the worker's start (importing transformers) is not counted.
        try:
            ready = self._lines.get(timeout=STARTUP_TIMEOUT)
        except queue.Empty:
            ready = None
        if ready is None:
            self.close()
            raise RenderError("render", "the renderer process did not start (is transformers installed?)")

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc.stdout.close()
            self._proc.stdin.close()
            self._proc = None

    def __enter__(self) -> "Renderer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def render(
        self, messages: list[dict], *, tools: list | None = None, add_generation_prompt: bool = False, **kwargs
    ) -> str:
        """The rendered text, or RenderError."""
        request = {
            "template": self.chat_template,
            "messages": messages,
            "tools": tools,
            "add_generation_prompt": add_generation_prompt,
            "kwargs": {"bos_token": self.bos_token, "eos_token": self.eos_token, **kwargs},
        }
        # Keys keep their order: a template that loops over a call's arguments writes them as they were given.
        key = json.dumps(request, ensure_ascii=False)
        if key in self._cache:
            result = self._cache[key]
        else:
            result = self._render(key)
            self._cache[key] = result
        if isinstance(result, RenderError):
            raise result
        return result

    def _render(self, line: str) -> str | RenderError:
        self.count += 1
        if self._proc is None or self._proc.poll() is not None:
            try:
                self._start()
            except RenderError as error:
                return error
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            reply = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            return RenderError("loop", f"no result within {self.timeout:g} s")
        except OSError as error:
            self.close()
            return RenderError("render", f"the renderer stopped ({error})")
        if reply is None:
            self.close()
            return RenderError("explode", "the renderer process died (memory limit)")
        answer = json.loads(reply)
        if "text" in answer:
            return answer["text"]
        return RenderError(answer["kind"], answer["message"])


def _render_one(request: dict) -> dict:
    import jinja2
    from transformers.utils import chat_template_utils as ctu

    try:
        compiled = ctu._compile_jinja_template(request["template"])
    except jinja2.TemplateSyntaxError as error:
        return {"kind": "syntax", "message": f"line {error.lineno}: {error.message}"}
    except Exception as error:  # noqa: BLE001 - any failure of untrusted code is reported, not raised
        return {"kind": "syntax", "message": f"{type(error).__name__}: {error}"}
    # A fixed clock: templates that print today's date render the same text in every probe.
    compiled.globals["strftime_now"] = lambda format: FIXED_NOW.strftime(format)
    kwargs = ctu._plain_template_data(request["kwargs"])
    messages = ctu._alias_reasoning_fields(ctu._plain_template_data(request["messages"]))
    tools = ctu._plain_template_data(request["tools"])
    size = 0
    pieces = []
    try:
        for piece in compiled.generate(
            messages=messages,
            tools=tools,
            documents=None,
            add_generation_prompt=request["add_generation_prompt"],
            **kwargs,
        ):
            size += len(piece)
            if size > MAX_OUTPUT:
                return {"kind": "explode", "message": f"more than {MAX_OUTPUT} characters"}
            pieces.append(piece)
    except jinja2.exceptions.SecurityError as error:
        return {"kind": "sandbox", "message": str(error)}
    except MemoryError:
        return {"kind": "explode", "message": "out of memory"}
    except jinja2.exceptions.TemplateError as error:
        return {"kind": "raised", "message": str(error)}
    except RecursionError:
        return {"kind": "loop", "message": "recursion too deep"}
    except Exception as error:  # noqa: BLE001
        return {"kind": "render", "message": f"{type(error).__name__}: {error}"}
    return {"text": "".join(pieces)}


def _worker() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass
    import logging

    logging.disable(logging.WARNING)
    import jinja2  # noqa: F401
    from transformers.utils import chat_template_utils  # noqa: F401

    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            answer = _render_one(json.loads(line))
        except MemoryError:
            answer = {"kind": "explode", "message": "out of memory"}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _worker()
