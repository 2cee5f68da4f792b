"""``codeact policy probe --layers ... --layers ... --html FILE``: a heat map of
categories × layer configurations, checked as text and rendered in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sandbox import SandboxPolicy, policy_cli
from sandbox.probe import CaseResult


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("probe") / "probe.html"
    argv = ["policy", "probe", "--category", "introspection", "--category", "imports"]
    argv += ["--layers", "language,os", "--layers", "language", "--html", str(path)]
    status = policy_cli.main(argv)
    assert status == 0
    return path, path.read_text()


@pytest.mark.timeout(240)
def test_the_heat_map_has_a_cell_per_category_and_configuration(page: tuple[Path, str]) -> None:
    _, text = page
    cells = re.findall(r'<td class="cell"[^>]*data-config="([^"]+)" data-escaped="(\d+)"', text)
    assert len(cells) == 2 * 2
    assert {config for config, _ in cells} == {"layers on: language,os", "layers on: language"}
    assert all(escaped == "0" for _, escaped in cells)
    assert text.count('<details class="category"') == 2
    assert "<script" not in text and "http" not in text


@pytest.mark.timeout(240)
def test_the_page_says_who_probed_what_when_and_where(page: tuple[Path, str]) -> None:
    _, text = page
    about = re.search(r"<p class=meta id=about>codeact ([^ ]+) · probed (\S+) ·", text)
    assert about is not None and about.group(1) != "unknown"
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", about.group(2))
    default = SandboxPolicy.preset("default")
    assert default.digest()[:16] in text
    machine = text[text.index('<table id="machine">') :]
    machine = machine[: machine.index("</table>")]
    # Each mechanism's state under each configuration: the OS layer's are off under
    # `--layers language`; the rest are this machine's (active, or degraded and why).
    assert ">language<" in machine and ">syscall_filter<" in machine
    assert re.search(r'class="off">off<', machine)
    for outcome in ("rejected", "contained", "escaped"):
        assert f'<dt class="{outcome}">{outcome}</dt>' in text  # the legend


@pytest.mark.timeout(240)
def test_json_records_name_their_layers(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["policy", "probe", "--category", "introspection", "--layers", "os", "--json"]
    assert policy_cli.main(argv) == 0
    records = [
        CaseResult.model_validate_json(line) for line in capsys.readouterr().out.splitlines()
    ]
    assert records and {r.layers for r in records} == {"os"}


@pytest.mark.timeout(240)
def test_chromium_renders_the_heat_map(page: tuple[Path, str], tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no Chromium on this machine: .ci/run installs Debian's chromium when root")
    path, _ = page
    argv = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={tmp_path}", "--dump-dom", path.as_uri(),
    ]  # fmt: skip
    dom = subprocess.run(argv, capture_output=True, text=True, timeout=90, check=True).stdout
    assert len(re.findall(r'<td class="cell"', dom)) == 4
    assert '<table id="heatmap">' in dom


@pytest.mark.timeout(240)
def test_probe_shows_progress(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["policy", "probe", "--category", "introspection", "--display", "plain"]
    assert policy_cli.main(argv) == 0
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    done, total = re.search(r"(\d+)/(\d+) · ", last).groups()  # type: ignore[union-attr]
    assert done == total and int(total) > 0
    assert "rejected" in last and "escaped" in last and "ETA" in last
    assert policy_cli.main([*argv[:-2], "--json"]) == 0
    assert capsys.readouterr().err == ""  # --json alone: no progress lines
