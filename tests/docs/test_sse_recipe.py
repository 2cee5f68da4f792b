"""docs/cookbook/sse.md: the app served by the page's own command, read by curl, by the
page's Python client, by Chromium through the page's ``index.html``, and left halfway."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.bench.chromium import _FLAGS
from tests.docs.pages import commands, titled
from tests.docs.servers import free_port, serving

PAGE = "cookbook/sse.md"
COVERS = {PAGE: ["app.py", "index.html", "client.py"]}
BIN = Path(sys.executable).parent
QUESTION = 'How many words are in "to be or not to be"?'

pytestmark = pytest.mark.timeout(240)


def _command(starting: str, port: int) -> list[str]:
    (line,) = [c for c in commands(PAGE) if c.startswith(starting)]
    return shlex.split(line.replace("8000", str(port)))


def test_the_recipe(tmp_path: Path) -> None:
    """One server for every check (its workers are the test's children: a server per
    check would cost a sandbox start each), stopped before the leak check runs."""
    for name in COVERS[PAGE]:
        (tmp_path / name).write_text(titled(PAGE, name))
    port = free_port()
    argv = _command("uvicorn ", port)
    with serving([str(BIN / argv[0]), *argv[1:]], port, cwd=tmp_path):
        app = f"http://127.0.0.1:{port}"
        curl_reads_every_event_as_it_is_named(app)
        the_python_client_prints_tokens_feedback_and_the_answer(app, tmp_path)
        a_client_that_leaves_cancels_the_run(app)
        browser = chromium_found()
        if browser:
            the_page_shows_the_answer_in_a_browser(browser, app, tmp_path / "profile")


def _events(text: str) -> list[dict[str, object]]:
    lines = [line for line in text.splitlines() if line.startswith("data: ")]
    return [json.loads(line.removeprefix("data: ")) for line in lines]


def curl_reads_every_event_as_it_is_named(app: str) -> None:
    port = app.rsplit(":", 1)[1]
    argv = _command("curl ", int(port))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "started" and kinds[-1] == "completed" and events[-1]["result"] == 6
    # Each step's pieces come before its reply, and the reply before its script's run.
    first_reply = kinds.index("model_replied")
    assert kinds[1:first_reply].count("model_delta") > 5
    assert kinds[first_reply + 1] == "script_executed"
    names = [line[7:] for line in done.stdout.splitlines() if line.startswith("event: ")]
    assert names == kinds


def the_python_client_prints_tokens_feedback_and_the_answer(app: str, tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text(titled(PAGE, "client.py"))
    (line,) = [c for c in commands(PAGE) if c.startswith("python client.py")]
    argv = shlex.split(line.replace("http://127.0.0.1:8000", app))
    done = subprocess.run(
        [sys.executable, *argv[1:]], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "Let me count the words" in done.stdout and "-> Observation:\n6" in done.stdout
    assert done.stdout.rstrip().endswith("\n6")


def the_page_shows_the_answer_in_a_browser(browser: str, app: str, profile: Path) -> None:
    # Virtual time stands still while the stream is open, so the DOM is dumped after it.
    argv = [browser, *_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000"]
    done = subprocess.run(
        [*argv, "--dump-dom", f"{app}/#{QUESTION}"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Answer: 6" in done.stdout and "Let me count the words" in done.stdout


def chromium_found() -> str | None:
    """Chromium's path; None (the browser check left out, said on stderr) without one."""
    found = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if found is None:
        print("no Chromium: the page's browser check is left out", file=sys.stderr)
    return found


def _health(app: str) -> dict[str, int]:
    reply = httpx.get(f"{app}/health", timeout=30)
    reply.raise_for_status()
    health: dict[str, int] = reply.json()
    return health


def a_client_that_leaves_cancels_the_run(app: str) -> None:
    served = _health(app)["sessions_served"]
    with httpx.stream("GET", f"{app}/chat", params={"message": QUESTION}, timeout=60) as reply:
        for line in reply.iter_lines():
            if '"model_delta"' in line:
                break  # mid-reply: the script has not run yet
    # Had the run gone on, its script would have run in a session within about a second.
    time.sleep(5)
    health = _health(app)
    assert health["sessions_served"] == served, health
    assert health["live_workers"] == 0 and health["sessions_open"] == 0, health
