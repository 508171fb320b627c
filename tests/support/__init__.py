"""What the tests and the benchmarks share: raw-socket HTTP clients, the attacks the edge
tests and ``bench/attacks.py`` both run, and probes of a server process (its memory, its
descriptors, its children).

``bench/`` imports from here; nothing here imports ``bench/``, and a test never does.
"""
