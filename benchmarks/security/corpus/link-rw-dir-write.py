# id: link-rw-dir-write
# category: symlink
# technique: write through a directory symlink inside the writable mount that points outside
# success: a file appears in the outside directory
# expected: contained
for base in ({{OUTSIDE_DIR_LINK_HOST}}, {{OUTSIDE_DIR_LINK}}):
    try:
        with open(base + "/" + {{NONCE}}, "w") as f:
            f.write("escaped")
        print("wrote under", base)
    except Exception as exc:
        print(base, type(exc).__name__)
raise PermissionError("link refused")
