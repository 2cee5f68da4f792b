"""Every route into a formatter (``formatters.ROUTES``) walks no attribute a script
could not read itself; each is tried for real with the OS layer off.

Each script hands a template whose field walks ``__init__.__globals__`` (or a private
attribute) to the route, and prints ``ESCAPED`` only if the formatter returned.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy, Session
from sandbox.worker.language import formatters

WALK = "{0.__init__.__globals__}"

ROUTE_SCRIPTS = {
    "str.format, str.format_map (bound, unbound, through super())": (
        "import json\n"
        f"for attempt in (lambda: '{WALK}'.format(json.JSONEncoder),\n"
        f"                lambda: str.format('{WALK}', json.JSONEncoder),\n"
        "                 lambda: '{e.__init__.__globals__}'.format_map({'e': json.JSONEncoder}),\n"
        "                 lambda: super(str, '{0._x}').format(json.JSONEncoder)):\n"
        "    try:\n"
        "        attempt()\n"
        "        print('ESC' + 'APED')\n"
        "    except AttributeError:\n"
        "        pass\n"
        "raise AttributeError('every walk was refused')\n"
    ),
    "operator.methodcaller('format', ...)": (
        f"import json, operator\noperator.methodcaller('format', json.JSONEncoder)('{WALK}')\n"
    ),
    "collections.UserString.format, .format_map": (
        f"import collections, json\ncollections.UserString('{WALK}').format(json.JSONEncoder)\n"
    ),
    "string.Formatter": "import string\nstring.Formatter().format('{0}', 1)\n",
    "string.Template": (
        "import string, json\n"
        "class T(string.Template):\n"
        "    idpattern = r'[a-z_.]+'\n"
        "print(T('$e.__init__').substitute({'e.__init__': 'plain key'}))\n"
        "T('$e.__init__').substitute({'e': json.JSONEncoder})\n"
    ),
    "% formatting, format(), __format__, f-strings": (
        "import json\n"
        "print('%(e)s' % {'e': 1}, format(1.5, '.1f'))\n"
        "print(f'{json.JSONEncoder.__init__.__globals__}')\n"
    ),
    "logging (style='{')": "import logging\n",
    "numpy printing and savetxt": (
        "import numpy as np, json, io\n"
        f"np.set_printoptions(formatter={{'float': '{WALK}'.format}})\n"
        "print(np.array([1.5]))\n"
    ),
    "pandas float_format as a str": (
        "import pandas as pd\n"
        "walk = '{0.__class__.__init__.__globals__}'\n"
        "print(pd.DataFrame({'a': [1.5]}).to_string(float_format=walk))\n"
    ),
    "pandas Styler.format as a str": (
        # Applied when the table renders (with jinja2; without it, no Styler at all).
        "import pandas as pd\n"
        "pd.DataFrame({'a': [1.5]}).style.format('{0.__class__.__init__.__globals__}').to_html()\n"
    ),
    "pandas Styler.relabel_index labels": (
        "import pandas as pd, json\n"
        "df = pd.DataFrame({'a': [1]}, index=pd.Index([json.JSONEncoder], dtype=object))\n"
        "print(df.style.relabel_index(['{0.__init__.__globals__}']).to_html())\n"
    ),
    "pandas Styler templates (jinja2)": (
        "import pandas as pd\n"
        "env = pd.DataFrame({'a': [1]}).style.env\n"
        "print(env.from_string('{{ cycler.__init__.__globals__ }}').render(), 'ESC' + 'APED')\n"
    ),
    "matplotlib StrMethodFormatter, bar_label and clabel templates": (
        "import matplotlib.ticker as ticker\n"
        "print(ticker.StrMethodFormatter('{x.__class__.__init__.__globals__}')(1.5))\n"
    ),
}


def test_every_route_is_tried() -> None:
    assert set(ROUTE_SCRIPTS) == set(formatters.ROUTES)


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    policy = SandboxPolicy.preset("data").with_layers(os=False)
    with Sandbox(policy, spares=0) as box, box.session() as opened:
        yield opened


@pytest.mark.timeout(60)
@pytest.mark.parametrize("route", sorted(ROUTE_SCRIPTS))
def test_no_route_walks_attributes(session: Session, route: str) -> None:
    execution = session.run(ROUTE_SCRIPTS[route])
    dump = execution.model_dump_json()
    assert "ESCAPED" not in dump
    assert "_sys" not in dump and "'__builtins__'" not in dump, route
    if route != "string.Template":
        assert execution.error_code in ("policy_violation", "runtime_error"), execution
    else:
        assert execution.stdout == "plain key\n" and execution.error_code == "runtime_error"


@pytest.mark.timeout(60)
def test_templates_without_walks_keep_the_native_speed_path(session: Session) -> None:
    execution = session.run(
        "import collections, pandas as pd, matplotlib.ticker as ticker\n"
        "print(collections.UserString('{0:.2f}|{x}').format(1.234, x='y'))\n"
        "print(pd.DataFrame({'a': [1.5]}).to_string(float_format='{:.3f}'))\n"
        "print(ticker.StrMethodFormatter('{x:.1f} m')(2.25))"
    )
    assert execution.error_code is None, execution.output
    assert execution.stdout.splitlines()[0] == "1.23|y"
    assert "1.500" in execution.stdout and "2.2 m" in execution.stdout
