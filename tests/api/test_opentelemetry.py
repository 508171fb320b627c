"""FastAPI's native OpenTelemetry stays off: the service's telemetry is its own (request
ids, the access log, ``/metrics``), and FastAPI's would otherwise trace every request as
soon as anything in the process configured a global provider."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# Run in a process of its own: OpenTelemetry's global providers can be set once.
ASKED_FOR = textwrap.dedent(
    """
    import tempfile
    from fastapi.testclient import TestClient
    from opentelemetry import metrics, trace

    asked = []

    # Providers an SDK would install (FastAPI leaves the API's no-op ones alone).
    class Tracers(trace.TracerProvider):
        def get_tracer(self, *args, **kwargs):
            asked.append("tracer")
            return trace.NoOpTracer()

    class Meters(metrics.MeterProvider):
        def get_meter(self, name, *args, **kwargs):
            asked.append("meter")
            return metrics.NoOpMeter(name)

    trace.set_tracer_provider(Tracers())
    metrics.set_meter_provider(Meters())

    from app.main import create_app
    from app.settings import Settings

    folder = tempfile.mkdtemp()
    app = create_app(Settings(database_url=f"sqlite:///{folder}/otel.sqlite"))
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/v1/faith-track").status_code == 200
    print(",".join(asked) or "nothing")
    """
)


def test_fastapis_native_opentelemetry_is_off_even_with_global_providers() -> None:
    done = subprocess.run(
        [sys.executable, "-c", ASKED_FOR], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "nothing"
