"""Images a script shows: ``display(obj)`` and ``plt.show()`` attach them to its run."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from sandbox import ErrorCode, Sandbox, SandboxPolicy

pytestmark = pytest.mark.timeout(120)
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def data_sandbox() -> Iterator[Sandbox]:
    with Sandbox("data", spares=1) as sb:
        yield sb


def test_show_and_display_attach_pngs_in_order(data_sandbox: Sandbox) -> None:
    source = (
        "import matplotlib.pyplot as plt\n"
        "plt.plot([1, 2, 3])\nplt.show()\n"  # the open figure, then closed
        "fig, ax = plt.subplots()\nax.bar(['a', 'b'], [1, 2])\ndisplay(ax)\n"
        "display(b'\\xff\\xd8\\xff\\xe0 a jpeg')\n"
        "plt.show()\n"  # fig is still open: shown again, then closed
        "plt.show()\n"  # nothing open: nothing shown
        "final_result(len(plt.get_fignums()))"
    )
    with data_sandbox.session() as session:
        execution = session.run(source)
        assert execution.ok, execution.output
        assert execution.output.value == 0
        kinds = [image.media_type for image in execution.images]
        assert kinds == ["image/png", "image/png", "image/jpeg", "image/png"]
        assert base64.b64decode(execution.images[0].data).startswith(PNG)
        # The images are the run's: the next run starts with none.
        assert session.run("x = 1").images == []


def test_display_refuses_what_it_cannot_show(data_sandbox: Sandbox) -> None:
    with data_sandbox.session() as session:
        execution = session.run("display('chart.png')")
        assert execution.error_code == ErrorCode.RUNTIME_ERROR
        assert "display() shows a matplotlib figure" in execution.output.message  # type: ignore[union-attr]
        execution = session.run("display(b'GIF89a')")
        assert "PNG or JPEG bytes" in execution.output.message  # type: ignore[union-attr]


def test_images_count_against_the_runs_output_budget() -> None:
    data = SandboxPolicy.preset("data")
    small = data.model_copy(
        update={"limits": data.limits.model_copy(update={"result_bytes": 20_000})}
    )
    with Sandbox(small, spares=0) as sb, sb.session() as session:
        execution = session.run(
            "import matplotlib.pyplot as plt\nimport numpy as np\n"
            "for i in range(5):\n    plt.imshow(np.arange(2500).reshape(50, 50) % 7)\n"
            "    plt.show()\n"
        )
    assert execution.error_code == ErrorCode.OUTPUT_LIMIT
    assert "the images of one run may take 20,000 bytes" in execution.output.message  # type: ignore[union-attr]
    assert sum(len(image.data) for image in execution.images) <= 20_000


def test_a_policy_without_plotting_has_no_display() -> None:
    with Sandbox("default", spares=0) as sb, sb.session() as session:
        execution = session.run("display(b'\\x89PNG\\r\\n\\x1a\\n')")
    assert "name 'display' is not defined" in execution.output.message  # type: ignore[union-attr]
