"""The rules and the use cases say what a refusal means (its kind); only the HTTP layer
says which status carries it (app/api/problems/statuses.py)."""

from __future__ import annotations

import pytest

from app.api.problems import PROBLEM_TYPES, status_of
from app.api.problems.statuses import STATUS_OF_KIND
from app.domain.errors import Kind, ServiceError


@pytest.mark.parametrize("slug", sorted(PROBLEM_TYPES))
def test_an_error_below_the_http_layer_declares_a_kind_and_no_status(slug: str) -> None:
    problem_type = PROBLEM_TYPES[slug]
    if not problem_type.__module__.startswith("app.api."):
        assert problem_type.kind is not None, slug
        assert "status" not in problem_type.__dict__, slug
    assert 400 <= status_of(problem_type) <= 599


def test_every_kind_has_a_status() -> None:
    assert set(STATUS_OF_KIND) == set(Kind)


def test_a_problem_type_needs_a_kind_or_a_status_but_not_both() -> None:
    with pytest.raises(TypeError, match="kind or a status"):

        class Neither(ServiceError):
            slug = "test-neither"
            title = "t"
            description = "d"

    with pytest.raises(TypeError, match="kind or a status"):

        class Both(ServiceError):
            slug = "test-both"
            kind = Kind.CONFLICT
            status = 409
            title = "t"
            description = "d"
