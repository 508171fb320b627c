"""A game's stacks of changes (``ChangeStack``) behave as the tuples of ``ChangeRef`` they
stand for, whatever is done to them, and survive being stored as JSON."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.domain.events import PLAY_TYPES
from app.domain.game import ChangeRef, ChangeStack

changes = st.builds(ChangeRef, st.integers(1, 10_000), st.sampled_from(sorted(PLAY_TYPES)))
stacks = st.lists(changes, max_size=30)
# What a test does to a stack: push a change, keep a slice of it.
steps = st.lists(
    st.one_of(
        st.tuples(st.just("push"), changes),
        st.tuples(st.just("slice"), st.tuples(st.integers(-32, 32), st.integers(-32, 32))),
    ),
    max_size=12,
)


def _stored(stack: ChangeStack) -> ChangeStack:
    """The stack as a game's state stores it and reads it back (lists from JSON)."""
    return ChangeStack(json.loads(json.dumps(stack.pairs())))


@given(stacks, steps)
def test_a_stack_is_the_tuple_of_its_changes(start: list[ChangeRef], done: list[Any]) -> None:
    stack, plain = ChangeStack.of(*start), tuple(start)
    for kind, arg in done:
        if kind == "push":
            stack, plain = stack.pushed(arg), (*plain, arg)
        else:
            stack, plain = stack[arg[0] : arg[1]], plain[arg[0] : arg[1]]
        stack = _stored(stack) if len(plain) % 2 else stack  # read back now and then
        assert isinstance(stack, ChangeStack)
        assert len(stack) == len(plain) and bool(stack) == bool(plain)
        assert tuple(stack) == plain and stack == plain and plain == stack
        assert list(reversed(stack)) == list(reversed(plain))
        for index in range(-len(plain), len(plain)):
            assert stack[index] == plain[index]


@given(stacks, stacks)
def test_stacks_are_equal_when_their_changes_are(a: list[ChangeRef], b: list[ChangeRef]) -> None:
    first, second = ChangeStack.of(*a), _stored(ChangeStack.of(*b))
    assert (first == second) == (a == b)
    if a == b:
        assert hash(first) == hash(second)
    assert first != list(a)  # only a stack or a tuple of changes compares equal


def test_pairs_are_written_as_the_state_format_stores_them() -> None:
    stack = ChangeStack.of(ChangeRef(2, "faith_changed")).pushed(ChangeRef(5, "report_resolved"))
    assert json.loads(json.dumps(stack.pairs())) == [[2, "faith_changed"], [5, "report_resolved"]]
    assert repr(stack) == (
        "ChangeStack([ChangeRef(seq=2, type='faith_changed'), "
        "ChangeRef(seq=5, type='report_resolved')])"
    )
