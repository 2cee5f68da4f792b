"""``python -m codeact``: the ``codeact`` command."""

import sys

from codeact.entry import main

if __name__ == "__main__":
    sys.exit(main())
