# id: data-matplotlib-config
# category: data
# technique: read the host's secret through matplotlib's rc parser, and write into matplotlib's config and cache directories
# success: the secret comes back or the marker is created
# expected: rejected
# ruff: noqa: SIM115
import matplotlib

for name, attempt in (
    ("rc_file", lambda: matplotlib.rc_file({{SECRET_FILE}})),
    ("rc_params_from_file", lambda: matplotlib.rc_params_from_file({{SECRET_FILE}})),
    ("configdir", lambda: open(matplotlib.get_configdir() + "/matplotlibrc", "w").write("backend: tkagg\n")),
    ("cachedir", lambda: open(matplotlib.get_cachedir() + "/fontlist.json", "w").write("{}")),
):
    try:
        print(name, attempt())
    except Exception as exc:
        print("blocked:", name, type(exc).__name__, str(exc)[:200])
print(matplotlib.get_cachedir())
