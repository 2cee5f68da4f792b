"""``codeact bench list``: every built-in suite loads, and one that does not fails."""

from __future__ import annotations

import pytest

from codeact.bench import loading
from codeact.cli import main


@pytest.mark.timeout(60)
def test_bench_list_shows_the_built_in_suites(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "list"]) == 0
    assert "m3tooleval: 82 tasks" in capsys.readouterr().out


@pytest.mark.timeout(60)
def test_bench_list_fails_when_a_built_in_suite_cannot_load(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = {**loading.BUILTIN, "gone": "codeact.bench.no_such_suite:SUITE"}
    monkeypatch.setattr(loading, "BUILTIN", broken)
    monkeypatch.setattr("codeact.bench.cli.BUILTIN", broken)
    assert main(["bench", "list"]) == 1
    out = capsys.readouterr()
    assert "m3tooleval: 82 tasks" in out.out
    assert "gone: unavailable: suite 'codeact.bench.no_such_suite:SUITE': cannot import" in out.err
    assert main(["bench", "list", "--json"]) == 1
