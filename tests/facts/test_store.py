"""The fact store refuses a row its relation does not declare: pyDatalog would accept it and
answer nothing (a bool is not an int column's value, nor a digit string)."""

import pytest

from legalog.facts.store import FactStore


def test_a_declared_row_is_stored() -> None:
    store = FactStore()
    store.add("loop_trip", "f/s3", 4)
    assert store.rows("loop_trip") == [("f/s3", 4)]


@pytest.mark.parametrize(
    ("row", "column"),
    [(("f/s3", True), "N"), (("f/s3", "4"), "N"), ((3, 4), "L")],
)
def test_a_value_of_the_wrong_type_is_refused_naming_its_column(row: tuple, column: str) -> None:
    store = FactStore()
    with pytest.raises(TypeError, match=rf"loop_trip\(.*\): column {column} got"):
        store.add("loop_trip", *row)
    assert store.rows("loop_trip") == []


def test_a_row_of_the_wrong_arity_is_refused() -> None:
    with pytest.raises(ValueError, match=r"loop_trip\(.*\): got 3 columns"):
        FactStore().add("loop_trip", "f/s3", 4, 5)


def test_a_batch_adds_its_rows_in_order_when_it_ends() -> None:
    store = FactStore()
    with store.batch() as add:
        add("loop_trip", "f/s3", 4)
        add("loop_trip", "f/s5", 2)
        assert store.rows("loop_trip") == []
    assert store.rows("loop_trip") == [("f/s3", 4), ("f/s5", 2)]


@pytest.mark.parametrize(
    ("row", "error", "message"),
    [
        (("f/s3", True), TypeError, r"loop_trip\(.*\): column N got True"),
        (("f/s3", 4, 5), ValueError, r"loop_trip\(.*\): got 3 columns"),
    ],
)
def test_a_batch_refuses_a_wrong_row_as_add_does_and_keeps_none(
    row: tuple, error: type[Exception], message: str
) -> None:
    store = FactStore()
    with pytest.raises(error, match=message), store.batch() as add:
        add("loop_trip", "f/s1", 1)
        add("loop_trip", *row)
    assert store.rows("loop_trip") == []


def test_a_batch_whose_block_raises_adds_nothing() -> None:
    store = FactStore()
    with pytest.raises(KeyError), store.batch() as add:
        add("loop_trip", "f/s1", 1)
        raise KeyError("stop")
    assert store.rows("loop_trip") == []


def test_a_batch_inside_a_batch_joins_it() -> None:
    store = FactStore()
    with store.batch() as outer:
        outer("loop_trip", "f/s1", 1)
        with store.batch() as inner:
            inner("loop_trip", "f/s2", 2)
        assert store.rows("loop_trip") == []
    assert store.rows("loop_trip") == [("f/s1", 1), ("f/s2", 2)]


@pytest.mark.parametrize(
    ("row", "error", "message"),
    [
        (("f/s3", True), TypeError, r"loop_trip\(.*\): column N got True"),
        (("f/s3", 4, 5), ValueError, r"loop_trip\(.*\): got 3 columns"),
    ],
)
def test_rows_appended_in_a_batch_are_checked_with_its_own(
    row: tuple, error: type[Exception], message: str
) -> None:
    store = FactStore()
    with pytest.raises(error, match=message), store.batch() as add:
        append = store.appender("loop_trip")
        add("loop_trip", "f/s1", 1)
        append(row)
    assert store.rows("loop_trip") == []


def test_an_appender_keeps_the_order_of_the_batch_and_may_append_nothing() -> None:
    store = FactStore()
    with store.batch() as add:
        store.appender("loop")  # no rows: nothing to refuse
        append = store.appender("loop_trip")
        add("loop_trip", "f/s1", 1)
        append(("f/s2", 2))
    assert store.rows("loop_trip") == [("f/s1", 1), ("f/s2", 2)]
    assert store.rows("loop") == []


def test_an_appender_needs_a_batch_and_a_declared_relation() -> None:
    store = FactStore()
    with pytest.raises(RuntimeError):
        store.appender("loop_trip")
    with pytest.raises(KeyError), store.batch():
        store.appender("no_such_relation")
