# The service image: migrates the database, then serves on port 8000.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /srv
RUN useradd --create-home --uid 10001 app

COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
RUN pip install --upgrade pip && pip install .

USER app
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
# The SQLite default needs a writable folder; with PostgreSQL set DATABASE_URL instead.
ENV DATABASE_URL=sqlite:////home/app/vatican-report.db
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000"]
