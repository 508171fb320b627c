"""What the tests and the benchmarks share: the one launcher of server processes
(``servers.py``: the service, a ceiling or any command, on a free port), raw-socket HTTP
clients, the attacks the edge tests and ``bench.attacks`` both run, and probes of a
server process (its memory, its descriptors, its children).

``bench/`` imports from here; nothing here imports ``bench/``, and a test never does
(``tests/edge/test_edge_support.py`` checks both).
"""
