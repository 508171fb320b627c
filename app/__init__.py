"""Reference rules service for the Vatican Report and Excommunication of Lorenzo il Magnifico."""

# The service's version, and the only place it is written: the package's metadata reads
# it from here (pyproject.toml, [tool.hatch.version]) and so does the contract's
# `info.version`. Semantic versioning; what each release changed is in CHANGELOG.md.
__version__ = "1.1.0"
