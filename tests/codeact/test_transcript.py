"""``codeact run``'s live display: tokens as they arrive, each script before it runs,
replies without code marked, images saved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codeact.events import ModelDelta, ModelReplied, ScriptExecuted
from codeact.transcript import Transcript
from sandbox import Execution, Observation, ScriptImage

ROOT = Path(__file__).resolve().parents[2]
FENCE = "`" * 3


def _delta(text: str, kind: str = "text", step: int = 1) -> ModelDelta:
    return ModelDelta(step=step, agent="a", kind=kind, text=text)  # type: ignore[arg-type]


def test_tokens_show_as_they_arrive_and_code_waits_for_the_script_line() -> None:
    written: list[str] = []
    transcript = Transcript(written.append)
    reply = f"Let me add.\n\n{FENCE}python\nx = 1 + 1\n{FENCE}\nDone soon."
    transcript.show(_delta("Checking", "thinking"))
    assert "".join(written).endswith("thinking:\n    Checking")  # shown at once
    for piece in [reply[i : i + 3] for i in range(0, len(reply), 3)]:
        before = len(written)
        transcript.show(_delta(piece))
        if "Let" in piece:
            assert len(written) > before  # the prose appears with its first piece
    live = "".join(written)
    assert "x = 1 + 1" not in live and "```" not in live
    assert "  Let me add." in live and "Done soon." in live
    transcript.show(
        ModelReplied(step=1, agent="a", content=reply, thinking="Checking", code="x = 1 + 1")
    )
    text = "".join(written)
    assert text.index("Done soon.") < text.index("script:\n    x = 1 + 1")
    assert text.count("── step 1 · a ──") == 1


def test_a_reply_without_code_is_marked() -> None:
    written: list[str] = []
    transcript = Transcript(written.append)
    transcript.show(_delta("Hello there."))
    transcript.show(ModelReplied(step=1, agent="a", content="Hello there.", code=None))
    assert "· no code in this reply: the model is asked for some" in "".join(written)


def test_images_are_saved_to_the_directory(tmp_path: Path) -> None:
    png = "iVBORw0KGgo="  # the PNG signature, base64
    execution = Execution(
        output=Observation(value=""), images=[ScriptImage(media_type="image/png", data=png)]
    )
    written: list[str] = []
    transcript = Transcript(written.append, tmp_path, quiet=True)
    transcript.show(
        ScriptExecuted(step=2, agent="a", source="plt.show()", execution=execution, feedback="ok")
    )
    assert written == []  # quiet, yet saved
    assert (tmp_path / "step2-1.png").read_bytes() == b"\x89PNG\r\n\x1a\n"


@pytest.mark.timeout(120)
def test_codeact_run_saves_a_chart_and_shows_the_script_first(tmp_path: Path) -> None:
    replies = [
        "Just thinking out loud.",
        f"Plotting.\n{FENCE}python\nimport matplotlib.pyplot as plt\n"
        f"plt.plot([1, 3, 2])\nplt.show()\n{FENCE}",
        f"{FENCE}python\nfinal_result('ok')\n{FENCE}",
    ]
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(replies))
    images = tmp_path / "charts"
    result = subprocess.run(
        [sys.executable, "-m", "codeact.cli", "run", "Plot it", "--model", f"scripted:{script}",
         "--policy", "data", "--save-images", str(images)],
        capture_output=True, text=True, cwd=ROOT, timeout=110, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "· no code in this reply" in out
    assert out.index("script:\n    import matplotlib.pyplot") < out.index("│ Observation")
    saved = images / "step2-1.png"
    assert f"saved image {saved}" in out
    assert saved.read_bytes().startswith(b"\x89PNG")
