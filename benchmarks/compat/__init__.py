"""Compatibility benchmarks: ordinary Python through the sandbox beside plain CPython."""
