"""The bench report draws the images a transcript's scripts showed, inline."""

from __future__ import annotations

import re

from codeact.bench.html import _message
from codeact.messages import ImageDataPart, Message, TextPart


def test_a_feedback_message_with_an_image_draws_it_inline() -> None:
    png = "iVBORw0KGgo="
    message = Message.human(
        [TextPart(text="Observation: <ok>"), ImageDataPart(media_type="image/png", data=png)]
    )
    html = _message(message)
    assert "Observation: &lt;ok&gt;" in html
    (src,) = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert src == f"data:image/png;base64,{png}"  # inline: the page stays self-contained
