# Python 3.11 from Debian's packages, laid out like python:3.11-slim for the service's
# Dockerfile: `python` and `pip` first on PATH, installing where the image's user can run
# them (here a virtualenv, since Debian's own Python refuses pip installs into it).
ARG BASE=vatican-report/debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/python
# pip's own certificate list would not hold the authorities build.sh added to the system's.
ENV PATH=/opt/python/bin:$PATH \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
