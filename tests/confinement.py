"""What a test does where the confinement report calls a mechanism degraded.

On a machine that has every mechanism (CI sets ``CODEACT_REQUIRE_FULL_CONFINEMENT=1``),
a degraded mechanism is a failure: a bug in the report must not turn the security suite
green by skipping it. Elsewhere the test is skipped, saying why.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

#: Set where every mechanism is expected (the project's CI machine).
REQUIRE_FULL = os.environ.get("CODEACT_REQUIRE_FULL_CONFINEMENT") == "1"


def degraded(why: str) -> NoReturn:
    """Skip with ``why``, or fail with it where full confinement is required."""
    if REQUIRE_FULL:
        pytest.fail(f"CODEACT_REQUIRE_FULL_CONFINEMENT=1, but {why}")
    pytest.skip(why)
