"""web/index.html in headless Chromium, as a person would use it: the page
loads the generated JavaScript parser of every bundled template, replays one
bundled sample per template token by token through its own UI code, and the
messages it shows must equal the Python parser's on the same tokens."""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from compiler.frontend import source as sources
from conftest import load_generated
from js_support import same_js

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "Chromium is not installed (.ci/run installs Debian's `chromium`)"
    return found


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript", ".json": "application/json"}

    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(ROOT)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def dump_dom(url: str, profile: Path) -> str:
    done = subprocess.run(
        [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=120000", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_page_replays_every_template_like_the_python_parser(server, tmp_path: Path):
    dom = dump_dom(f"{server}/web/index.html?all=1", tmp_path / "profile")
    assert 'data-state="done"' in dom, dom[-3000:]
    found = re.search(r'<pre id="results">(.*?)</pre>', dom, re.S)
    results = json.loads(html.unescape(found.group(1)))
    bundled = [path.stem for path in sources.bundled()]
    assert sorted(results) == sorted(bundled)
    for name, result in results.items():
        samples = json.loads((ROOT / "templates_src" / "samples" / f"{name}.json").read_text(encoding="utf-8"))["samples"]
        sample = next(s for s in samples if s["id"] == result["sample"])
        assert "error" not in result, (name, result)
        assert "".join(result["tokens"]) == sample["output"]
        parser = load_generated(name).ResponseParser(sample["prefix"], tools=sample.get("tools"))
        for token in result["tokens"]:
            parser.feed(token)
        message, _ = parser.finalize()
        assert len(result["tokens"]) > 1
        assert same_js({"message": result["message"]}, {"message": json.loads(json.dumps(message))}), name


def test_page_shows_a_chosen_sample(server, tmp_path: Path):
    """Without ?all: the template and sample from the query are selected and shown."""
    dom = dump_dom(f"{server}/web/index.html?template=gpt_oss", tmp_path / "profile")
    assert 'data-state="ready"' in dom
    samples = json.loads((ROOT / "templates_src" / "samples" / "gpt_oss.json").read_text(encoding="utf-8"))["samples"]
    for sample in samples:
        assert f'<option value="{html.escape(sample["id"])}"' in dom
    assert dom.count('<option value="') == len(samples) + len(sources.bundled())
