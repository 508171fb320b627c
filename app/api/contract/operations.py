"""Operations: liveness, readiness, Prometheus metrics and the problem type pages."""

from __future__ import annotations

import hmac
import os

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from pydantic import BaseModel, Field

from app.api.contract.dependencies import ServiceHealth
from app.api.platform.client_address import request_client_ip
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.responses import JSONDocumentResponse, JSONModelResponse, raw_json_response
from app.api.problems import PROBLEM_TYPES, problem_response, problem_responses
from app.api.problems.statuses import status_of

router = APIRouter(tags=["operations"], route_class=ExplicitRoute)


class Health(BaseModel):
    status: str = Field(examples=["ok"])


class Readiness(BaseModel):
    status: str = Field(examples=["ready"])


class ProblemTypeInfo(BaseModel):
    type: str
    slug: str
    status: int
    title: str
    description: str


# Always the same answer: serialised once.
_HEALTHY = Health(status="ok").model_dump_json().encode()


@router.get(
    "/healthz",
    operation_id="getHealth",
    summary="Liveness: the process is up",
    response_model=Health,
)
async def get_health() -> Response:
    # Deliberately touches nothing: a database outage must not get the process restarted.
    return raw_json_response(_HEALTHY, 200, {})


@router.get(
    "/readyz",
    operation_id="getReadiness",
    summary="Readiness: the database answers",
    response_model=Readiness,
    responses=problem_responses("service-unavailable"),
)
async def get_readiness(request: Request, health: ServiceHealth) -> Response:
    # Bounded (READYZ_TIMEOUT_MS) and on threads of its own: a stuck database makes this
    # a 503 at once, even while every request thread waits on it.
    try:
        await health.database_answers()
    except TimeoutError:
        return problem_response(
            request,
            "service-unavailable",
            detail=f"The database does not answer within {health.timeout_s * 1000:.0f} ms.",
        )
    except Exception as exc:
        return problem_response(
            request,
            "service-unavailable",
            detail=f"The database does not answer ({type(exc).__name__}).",
        )
    return JSONModelResponse(Readiness(status="ready"))


def _registry() -> CollectorRegistry:
    # With several worker processes each keeps its own counters; prometheus-client's
    # multiprocess mode (PROMETHEUS_MULTIPROC_DIR) aggregates them into one answer.
    if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
        return REGISTRY
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return registry


@router.get("/metrics", include_in_schema=False, response_class=PlainTextResponse)
async def get_metrics(request: Request) -> Response:
    # What the service counts (routes, refusals, subscribers) is for its operators only:
    # anyone else is told there is nothing here, as for any path that does not exist.
    if not _may_read_metrics(request):
        return problem_response(
            request, "not-found", detail=f"No route or resource at {request.url.path}"
        )
    return Response(generate_latest(_registry()), media_type=CONTENT_TYPE_LATEST)


def _may_read_metrics(request: Request) -> bool:
    """From ``METRICS_NETWORKS`` (loopback by default), or with ``METRICS_TOKEN``."""
    settings = request.app.state.settings
    if settings.metrics_token is not None:
        scheme, _, presented = request.headers.get("authorization", "").partition(" ")
        expected = settings.metrics_token.get_secret_value().encode()
        if scheme.lower() == "bearer" and hmac.compare_digest(presented.strip().encode(), expected):
            return True
    client = request_client_ip(request)
    return client is not None and any(
        client.version == network.version and client in network
        for network in settings.metrics_networks
    )


@router.get("/problems", include_in_schema=False)
async def list_problem_types() -> Response:
    return JSONDocumentResponse({"problems": [_info(slug).model_dump() for slug in PROBLEM_TYPES]})


@router.get("/problems/{slug}", include_in_schema=False, response_model=ProblemTypeInfo)
async def get_problem_type(request: Request, slug: str) -> Response:
    if slug not in PROBLEM_TYPES:
        return problem_response(request, "not-found", detail=f"No problem type {slug!r}")
    return JSONModelResponse(_info(slug))


def _info(slug: str) -> ProblemTypeInfo:
    problem_type = PROBLEM_TYPES[slug]
    return ProblemTypeInfo(
        type=f"/problems/{slug}",
        slug=slug,
        status=status_of(problem_type),
        title=problem_type.title,
        description=problem_type.description,
    )
