"""Random changes of play for the undo properties: the rules' (tests/domain/test_history.py)
and the use cases' on a real database (tests/services/test_undo.py) draw the same steps,
each a tuple naming the change and its arguments, for a game of three players."""

from __future__ import annotations

from hypothesis import strategies as st

PLAYERS = ["p1", "p2", "p3"]

PLAY_STEPS = st.one_of(
    st.tuples(
        st.just("faith"), st.dictionaries(st.sampled_from(PLAYERS), st.integers(0, 20), min_size=1)
    ),
    st.tuples(st.just("delta"), st.sampled_from(PLAYERS), st.integers(-6, 6).filter(bool)),
    st.tuples(
        st.just("leaders"),
        st.sampled_from(PLAYERS),
        st.lists(
            st.sampled_from(["sisto_iv", "santa_rita", "martin_lutero"]), max_size=2, unique=True
        ),
    ),
    st.tuples(st.just("turn_order"), st.permutations(PLAYERS)),
    st.tuples(
        st.just("decision"),
        st.integers(1, 3),
        st.sampled_from(PLAYERS),
        st.sampled_from(["support", "refuse"]),
    ),
    st.tuples(st.just("resolve"), st.integers(1, 3), st.sampled_from([None, "support", "refuse"])),
    st.tuples(st.just("round")),
)
