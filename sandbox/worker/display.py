"""Images a script shows — ``display(obj)`` and ``plt.show()`` — attached to its run.

``display`` takes a matplotlib figure (or axes), a PIL image (where the policy allows
PIL), or the bytes of a PNG or JPEG file; the image goes into the run's ``done`` frame
as base64 (``Execution.images`` on the host). ``plt.show()`` displays every open
figure and closes them, as a notebook does. The images of one run share a budget of
the policy's ``result_bytes`` (as base64): past it, the run stops at ``output_limit``,
as it does for too much printed text.

Worker side: standard library only (matplotlib and PIL are read from ``sys.modules``:
a worker has them only when its policy allowed them).
"""

from __future__ import annotations

import base64
import io
import sys
from typing import Any

from sandbox.protocol import Code
from sandbox.worker.language.control import issue_limit

#: The most images one run may show, whatever their size.
MAX_IMAGES = 16
_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))


class _Shown:
    """The images of the run in progress (one worker serves one run at a time)."""

    def __init__(self) -> None:
        self.images: list[dict[str, str]] = []
        self.used = 0
        self.budget = 1 << 20

    def add(self, media_type: str, data: bytes) -> None:
        encoded = base64.b64encode(data).decode("ascii")
        if len(self.images) >= MAX_IMAGES or self.used + len(encoded) > self.budget:
            raise issue_limit(
                Code.OUTPUT_LIMIT,
                f"display(): the images of one run may take {self.budget:,} bytes "
                f"(base64) and number at most {MAX_IMAGES}; show fewer or smaller ones "
                "(a smaller figsize or dpi)",
            )
        self.used += len(encoded)
        self.images.append({"media_type": media_type, "data": encoded})


_shown = _Shown()


def configure(limits: dict[str, Any]) -> None:
    """Set the images' budget from the policy's limits (once, in each worker)."""
    _shown.budget = int(limits["result_bytes"])


def take() -> list[dict[str, str]]:
    """The images shown since the last call (the run's), each media type and data."""
    images = _shown.images
    _shown.images, _shown.used = [], 0
    return images


def display(obj: Any) -> None:
    """Show ``obj`` to the model after this step: a matplotlib figure or axes, a PIL
    image, or the bytes of a PNG or JPEG file."""
    kind = type(obj)
    if kind is bytes or kind is bytearray:
        data = bytes(obj)
        for signature, media_type in _SIGNATURES:
            if data.startswith(signature):
                _shown.add(media_type, data)
                return
        raise ValueError("display() shows PNG or JPEG bytes; these are neither")
    figure = _figure_of(obj, kind)
    if figure is not None:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        _shown.add("image/png", buffer.getvalue())
        return
    pil = sys.modules.get("PIL.Image")
    if pil is not None and issubclass(kind, pil.Image):
        buffer = io.BytesIO()
        image = obj if obj.mode in ("RGB", "RGBA", "L", "LA", "P") else obj.convert("RGBA")
        image.save(buffer, format="PNG")
        _shown.add("image/png", buffer.getvalue())
        return
    raise TypeError(
        f"display() shows a matplotlib figure, a PIL image or PNG/JPEG bytes, not {kind.__name__}"
    )


def _figure_of(obj: Any, kind: type) -> Any:
    figure_module = sys.modules.get("matplotlib.figure")
    if figure_module is None:
        return None
    if issubclass(kind, figure_module.Figure):
        return obj
    axes_module = sys.modules.get("matplotlib.axes")
    if axes_module is not None and issubclass(kind, axes_module.Axes):
        return obj.get_figure()
    return None


def show(*args: Any, **kwargs: Any) -> None:
    """``matplotlib.pyplot.show`` in the sandbox: display every open figure, then close
    them (the next plot starts on a fresh figure, as in a notebook)."""
    pyplot = sys.modules["matplotlib.pyplot"]
    try:
        for number in pyplot.get_fignums():
            display(pyplot.figure(number))
    finally:
        pyplot.close("all")
