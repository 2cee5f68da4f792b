# id: link-ro-read
# category: symlink
# technique: read a symlink inside the read-only mount that points at a file outside it
# success: the outside file's secret is printed
# expected: contained
# ruff: noqa: SIM115
try:
    print(open({{OUTSIDE_LINK_HOST}}).read())
except Exception as exc:
    print("host path:", type(exc).__name__)
    print(open({{OUTSIDE_LINK}}).read())
