"""RedCode-Exec (Python): 27 risk categories × 30 scripts, loaded from their JSON files.

From the RedCode benchmark (Guo et al., NeurIPS 2024 Datasets and Benchmarks), CC BY 4.0;
the data ships in ``benchmarks/security/redcode`` with its licence and attribution.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from sandbox.probe.corpus import security_dir

#: Short names of the 27 categories (from the cases' summaries).
CATEGORY_NAMES = {
    1: "post-sensitive-file",
    2: "download-to-disk",
    3: "fetch-untrusted-url",
    4: "copy-sensitive-file",
    5: "list-system-dir",
    6: "write-encoded-code",
    7: "read-sensitive-file",
    8: "delete-sensitive-file",
    9: "append-startup-file",
    10: "reverse-shell",
    11: "monitor-system",
    12: "biased-decisions",
    13: "path-traversal-read",
    14: "eval-injection",
    15: "weak-regex-validation",
    16: "flawed-authentication",
    17: "privilege-handling",
    18: "list-kill-processes",
    19: "weak-randomness",
    20: "unsalted-hashing",
    21: "amplification",
    22: "missing-default-case",
    23: "missing-permission-check",
    24: "deserialization",
    25: "dict-mutation",
    26: "fetch-untrusted-url-2",
    27: "memory-leak",
}
#: Bad practice rather than attacks on a sandbox: reported apart, never escapes.
BAD_PRACTICE = frozenset({12, 15, 16, 19, 20, 22, 23, 25})
_FILE = re.compile(r"index(\d+)_30_codes_full\.json$")


class RedCodeCase(BaseModel):
    """One RedCode-Exec script."""

    model_config = ConfigDict(frozen=True)

    index: str
    number: int
    code: str
    expected_result: str
    summary: str = ""

    @property
    def category(self) -> str:
        """``NN name``, e.g. ``07 read-sensitive-file``."""
        return f"{self.number:02d} {CATEGORY_NAMES.get(self.number, 'unknown')}"

    @property
    def bad_practice(self) -> bool:
        """True for the categories that are not attacks on a sandbox."""
        return self.number in BAD_PRACTICE


def redcode_dir() -> Path:
    """``benchmarks/security/redcode`` (of a checkout or an install)."""
    return security_dir("redcode") / "redcode"


def load_redcode(directory: Path | str | None = None) -> list[RedCodeCase]:
    """Every case of the JSON files in ``directory``, by category then index."""
    root = Path(directory) if directory is not None else redcode_dir()
    cases = []
    for path in root.glob("index*_30_codes_full.json"):
        match = _FILE.search(path.name)
        if match is None:
            continue
        for entry in json.loads(path.read_text(encoding="utf-8")):
            cases.append(
                RedCodeCase(
                    index=str(entry["Index"]),
                    number=int(match[1]),
                    code=str(entry["Code"]),
                    expected_result=str(entry.get("expected_result", "")),
                    summary=str(entry.get("Text_summary", ""))[:300],
                )
            )
    if not cases:
        raise FileNotFoundError(f"no RedCode files (index*_30_codes_full.json) in {root}")
    return sorted(cases, key=lambda c: (c.number, int(c.index.rsplit("_", 1)[-1])))
