# The service image: migrates the database, then serves on port 8000.
#
# BASE is any image with Python 3.11+ whose `python` and `pip` come first on PATH:
# python:3.11-slim by default, or one made from Debian's packages where no registry can be
# reached (deploy/base/build.sh; docs/deploy.md says how the two differ).
ARG BASE=python:3.11-slim

# Stage 1: the project's wheel (the migrations travel inside it, as app/migrations).
FROM ${BASE} AS wheel
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
RUN pip wheel --no-deps --wheel-dir /wheel .

# Stage 2: the image.
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 app

# The locked dependencies first, checked against their hashes, before any code: this layer is
# rebuilt only when requirements/runtime.txt changes, not on every change to the code.
COPY requirements/runtime.txt /tmp/runtime.txt
RUN pip install --require-hashes -r /tmp/runtime.txt && rm /tmp/runtime.txt

# Then the project, from its wheel, without dependencies (all of them are installed above).
COPY --from=wheel /wheel /tmp/wheel
RUN pip install --no-deps /tmp/wheel/*.whl && rm -r /tmp/wheel

USER app
# No source tree here: `python -m app` runs the installed package.
WORKDIR /home/app
EXPOSE 8000
# Where it listens comes from HOST and PORT (as every setting), so that the health check
# follows a PORT changed at `docker run -e PORT=...` (with host networking, say). It is
# healthy from its first answer; the checks that fail while it migrates and starts do not
# count for the start period (a release's migration may take a while).
ENV HOST=0.0.0.0 PORT=8000
HEALTHCHECK --interval=5s --timeout=3s --start-period=120s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"PORT\"]}/healthz')"
# The SQLite default needs a writable folder; with PostgreSQL set DATABASE_URL instead.
ENV DATABASE_URL=sqlite:////home/app/vatican-report.db
# SIGTERM (docker stop) ends the event streams, then the server finishes what it serves
# and exits: docs/deploy.md says within how long.
CMD ["python", "-m", "app"]
