# id: os-hostile-file-name
# category: os
# technique: name a file under the writable mount with bytes that are not UTF-8 (a lone surrogate), a newline and a backslash, so that listing it breaks the JSON of every result
# success: a run's result, or a later session's, cannot be serialized
# expected: contained
for base in ({{MOUNT_RW}}, {{MOUNT_RW_HOST}}):
    for name in (chr(0xDCFF) + ".txt", "line\nbreak\\" + chr(0xDCFE)):
        try:
            with open(base + "/" + {{NONCE}} + name, "w") as out:
                out.write("x")
        except Exception as exc:
            print(base, type(exc).__name__)
print("named")
