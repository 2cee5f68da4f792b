# id: out-surrogates
# category: output-flood
# technique: lone surrogates and NULs in printed text and in the result
# success: the host's decoding fails (the next session breaks) or the limit is exceeded
# expected: contained
print("\ud800\udfff\x00" * 30000)
observation({"\ud800": "\x00" * 1000})
