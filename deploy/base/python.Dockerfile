# Python 3.11 from Debian's packages, laid out like python:3.11-slim for the service's
# Dockerfile: `python` and `pip` first on PATH, installing where the image's user can run
# them (here a virtualenv, since Debian's own Python refuses pip installs into it).
ARG BASE=vatican-report/debian:bookworm
FROM ${BASE}
# The building machine's own certificate authorities, if any (build.sh puts them here).
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/* \
 && update-ca-certificates \
 && python3 -m venv /opt/python
# pip's own certificate list would not hold the authorities added to the system's.
ENV PATH=/opt/python/bin:$PATH \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
