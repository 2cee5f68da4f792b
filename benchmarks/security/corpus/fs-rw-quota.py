# id: fs-rw-quota
# category: filesystem
# technique: write far more than the writable mount's byte budget, over several files
# success: the mount holds more than its budget
# expected: contained
base = {{MOUNT_RW}}
try:
    open(base + "/probe-check", "w").close()
except Exception:
    base = {{MOUNT_RW_HOST}}
chunk = "x" * (256 * 1024)
written = 0
for i in range(16):
    try:
        with open(f"{base}/{ {{NONCE}} }-{i}", "w") as f:
            f.write(chunk)
        written += len(chunk)
    except Exception as exc:
        print(i, type(exc).__name__, exc)
        break
print("written", written)
