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
