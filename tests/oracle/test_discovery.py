"""Where the PyPTO tests find PyPTO: `$LEGALOG_PYPTO`, else an installed `pypto`; never a folder
beside the clone.  Runs without PyPTO (nothing here imports it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.oracle import pypto_oracle


def test_legalog_pypto_names_the_folder_holding_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pypto" / "language").mkdir(parents=True)
    monkeypatch.setenv("LEGALOG_PYPTO", str(tmp_path))
    assert pypto_oracle.pypto_folder() == tmp_path
    assert pypto_oracle.available()


def test_a_folder_without_pyptos_language_is_no_pypto(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pypto").mkdir()
    monkeypatch.setenv("LEGALOG_PYPTO", str(tmp_path))
    assert pypto_oracle.pypto_folder() is None
    assert not pypto_oracle.available()


def test_without_the_variable_an_installed_pypto_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pypto" / "language").mkdir(parents=True)
    (tmp_path / "pypto" / "__init__.py").write_text("")
    monkeypatch.delenv("LEGALOG_PYPTO", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    # find_spec answers from sys.modules for a package already imported (an earlier test of the
    # session may have loaded the real PyPTO): this test asks what a fresh process would find
    monkeypatch.delitem(sys.modules, "pypto", raising=False)
    assert pypto_oracle.pypto_folder() == tmp_path
