"""Tools of the web_browsing domain: a text browser over the pages of `web_pages.jsonl`.

Each task gets a fresh browser from `make_tools()`, starting at `/`. A view shows
`LINES_PER_VIEW` lines of the current page under its name and "page i of n".
"""

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from codeact.bench.m3tooleval.calculator import calculator
from codeact.bench.m3tooleval.tasks import DATA_DIR

PAGES_FILE = DATA_DIR / "web_pages.jsonl"
LINES_PER_VIEW = 5
START_PAGE = "/"
RULE = "-" * 10


@dataclass(frozen=True)
class WebPage:
    """A page: its URL path and its lines of text."""

    name: str
    lines: tuple[str, ...]


@functools.cache
def load_pages() -> Mapping[str, WebPage]:
    """The pages by URL path, loaded once."""
    pages: dict[str, WebPage] = {}
    text = PAGES_FILE.read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            name, content = item["name"], item["content"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{PAGES_FILE}:{number}: not a page object: {exc}") from None
        if not isinstance(name, str) or not isinstance(content, str):
            raise ValueError(f"{PAGES_FILE}:{number}: 'name' and 'content' must be strings")
        pages[name] = WebPage(name=name, lines=tuple(content.split("\n")))
    if START_PAGE not in pages:
        raise ValueError(f"{PAGES_FILE}: no start page {START_PAGE!r}")
    return pages


class Browser:
    """One browsing session: the current page, its scroll position and the history."""

    def __init__(self, pages: Mapping[str, WebPage], start: str = START_PAGE) -> None:
        self._pages = pages
        self._page = pages[start]
        self._top = 0
        self._history: list[WebPage] = []

    @property
    def current(self) -> str:
        """The URL path of the current page."""
        return self._page.name

    def view(self) -> str:
        """The current view: page name, pagination and up to LINES_PER_VIEW lines."""
        total = len(self._page.lines)
        pages = max(1, -(-total // LINES_PER_VIEW))
        shown = self._page.lines[self._top : self._top + LINES_PER_VIEW]
        return "\n".join(
            [
                RULE,
                f"[Web Page Name: {self._page.name}]",
                f"[Viewing page {self._top // LINES_PER_VIEW + 1} of {pages}]",
                "",
                *shown,
                RULE,
            ]
        )

    def _open(self, page: WebPage) -> str:
        self._page = page
        self._top = 0
        return f"[Opened page: {page.name}]\n" + self.view()

    def click_url(self, url: str) -> str:
        """Open the page at `url` (surrounding quotes ignored), remembering the current one."""
        path = url.strip().strip("'\"")
        page = self._pages.get(path)
        if page is None:
            return f"[URL not found: {path}]"
        self._history.append(self._page)
        return self._open(page)

    def go_to_previous_page(self) -> str:
        """Return to the page before the current one, at its top."""
        if not self._history:
            return "[No previous page.]"
        return self._open(self._history.pop())

    def scroll_down(self) -> str:
        """Move the view down by LINES_PER_VIEW lines."""
        if self._top + LINES_PER_VIEW >= len(self._page.lines):
            return "[Reached the bottom of the page.]"
        self._top += LINES_PER_VIEW
        return self.view()

    def scroll_up(self) -> str:
        """Move the view up by LINES_PER_VIEW lines."""
        if self._top == 0:
            return "[Reached the top of the page.]"
        self._top -= LINES_PER_VIEW
        return self.view()


def make_tools(browser: Browser | None = None) -> dict[str, Callable[..., Any]]:
    """The domain's tools by name, bound to `browser` (by default a fresh one at `/`)."""
    session = browser if browser is not None else Browser(load_pages())

    def click_url(url: str) -> str:
        """Open a page by its path, as shown in [Clickable '<url>'] (e.g. '/products')."""
        return session.click_url(url)

    def go_to_previous_page() -> str:
        """Go back to the previous page and return its rendered view."""
        return session.go_to_previous_page()

    def scroll_down() -> str:
        """Scroll the current page down by 5 lines and return the rendered view."""
        return session.scroll_down()

    def scroll_up() -> str:
        """Scroll the current page up by 5 lines and return the rendered view."""
        return session.scroll_up()

    def view() -> str:
        """Return the rendered view (5 lines) of the current page."""
        return session.view()

    return {
        "click_url": click_url,
        "go_to_previous_page": go_to_previous_page,
        "scroll_down": scroll_down,
        "scroll_up": scroll_up,
        "view": view,
        "calculator": calculator,
    }
