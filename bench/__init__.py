"""The benchmarks, a package run from the checkout: ``python -m bench.run``,
``python -m bench.attacks``... (bench/README.md). They launch servers, and share clients
and attacks, through tests/support; nothing under tests/ imports bench (the reverse would
tie the tests to the benchmarks' scripts).
"""
