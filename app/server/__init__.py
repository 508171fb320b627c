"""The HTTP edge: uvicorn, configured and extended with the limits an exposed server needs.

``python -m app`` serves through :func:`app.server.serve.serve`: uvicorn's httptools
protocol with bounded headers, pipelining, timeouts and connections
(:mod:`app.server.uvicorn_internals`), workers that die with their master and a metrics folder
that does not outlive them (:mod:`app.server.lifecycle`).
"""
