"""The web_browsing domain: views, pagination, links, scrolling and history."""

from codeact.bench.m3tooleval import tools_for
from codeact.bench.m3tooleval.domains.web_browsing import Browser, WebPage, load_pages


def _browser(*pages: tuple[str, str]) -> Browser:
    return Browser({name: WebPage(name, tuple(text.split("\n"))) for name, text in pages})


SITE = (
    ("/", "\n".join(f"line {i}" for i in range(1, 12)) + "\n[Clickable '/a']"),
    ("/a", "page a"),
)


def test_view_shows_five_lines_with_name_and_pagination() -> None:
    view = _browser(*SITE).view()
    assert view.splitlines() == [
        "-" * 10,
        "[Web Page Name: /]",
        "[Viewing page 1 of 3]",
        "",
        "line 1",
        "line 2",
        "line 3",
        "line 4",
        "line 5",
        "-" * 10,
    ]


def test_scrolling_moves_five_lines_and_stops_at_the_ends() -> None:
    browser = _browser(*SITE)
    assert browser.scroll_up() == "[Reached the top of the page.]"
    second = browser.scroll_down()
    assert "[Viewing page 2 of 3]" in second and "line 6" in second and "line 5" not in second
    third = browser.scroll_down()
    assert "[Viewing page 3 of 3]" in third and "line 11" in third and "/a" in third
    assert browser.scroll_down() == "[Reached the bottom of the page.]"
    assert "[Viewing page 2 of 3]" in browser.scroll_up()
    assert "[Viewing page 2 of 3]" in browser.view()


def test_click_url_strips_quotes_and_reports_missing_pages() -> None:
    browser = _browser(*SITE)
    opened = browser.click_url("'/a'")
    assert opened.startswith("[Opened page: /a]\n") and "page a" in opened
    assert browser.current == "/a"
    assert browser.click_url('"/nowhere"') == "[URL not found: /nowhere]"
    assert browser.current == "/a"


def test_history_goes_back_to_the_top_of_previous_pages() -> None:
    browser = _browser(*SITE)
    assert browser.go_to_previous_page() == "[No previous page.]"
    browser.scroll_down()
    browser.click_url("/a")
    browser.click_url("/")
    browser.click_url("/nowhere")
    back = browser.go_to_previous_page()
    assert back.startswith("[Opened page: /a]") and browser.current == "/a"
    back = browser.go_to_previous_page()
    assert browser.current == "/" and "[Viewing page 1 of 3]" in back
    assert browser.go_to_previous_page() == "[No previous page.]"


def test_shipped_pages_and_a_fresh_browser_per_tool_set() -> None:
    pages = load_pages()
    assert len(pages) == 55 and "/" in pages
    first = tools_for("web_browsing")
    second = tools_for("web_browsing")
    first["click_url"]("/products")
    assert "[Web Page Name: /products]" in first["view"]()
    assert "[Web Page Name: /]" in second["view"]()
    assert "Welcome to MagicWand Co.!" in second["view"]()


def test_known_broken_links_of_the_data() -> None:
    tools = tools_for("web_browsing")
    assert "[Clickable '/team/customer_support']" in "\n".join(load_pages()["/team"].lines)
    assert tools["click_url"]("/team/customer_support").startswith("[URL not found")
    assert tools["click_url"]("/team/customer-support").startswith("[Opened page")


def test_web_calculator_is_the_safe_one() -> None:
    calculator = tools_for("web_browsing")["calculator"]
    assert calculator("68.71 + 105.52 + 90.15") == 68.71 + 105.52 + 90.15
    assert str(calculator("__import__('os')")).startswith("Failed to evaluate expression")
