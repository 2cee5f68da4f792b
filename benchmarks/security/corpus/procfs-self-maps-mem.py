# id: procfs-self-maps-mem
# category: procfs
# technique: /proc/self/maps and /proc/self/mem to read (and patch) the worker's own memory
# success: the worker's memory yields a host secret
# expected: contained
with open("/proc/self/maps") as f:
    maps = f.read()
print(maps[:2000])
with open("/proc/self/mem", "rb") as mem:
    for line in maps.splitlines():
        if "[heap]" in line:
            start, end = (int(x, 16) for x in line.split()[0].split("-"))
            mem.seek(start)
            data = mem.read(min(end - start, 1 << 22))
            i = data.find({{SECRET_ENV}}.encode())
            print(data[i : i + 80] if i >= 0 else "not found")
