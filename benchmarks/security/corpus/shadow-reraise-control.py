# id: shadow-reraise-control
# category: guard-shadowing
# technique: catch the sandbox's control exceptions (BaseException) to keep running past a limit
# success: the script keeps running after the CPU limit stopped it
# expected: contained
n = 0
while True:
    try:
        while True:
            n += 1
    except BaseException:
        n += 1
