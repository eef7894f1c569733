# SPDX-License-Identifier: MIT
"""The object rules (DP001, DP002) on small packages, and the source file DP001 blames."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from griffe import GriffeLoader, LoadingError, load_extensions

from docpact import ContractExtension, check_project, load_config
from docpact._readers.python.sources import unreadable
from samples.drift import line_of

PYPROJECT = '[project]\nname = "pk"\nversion = "0"\n'
DIVISOR = '\n[[tool.docpact.contract]]\nobject = "{}"\noperands = ["x"]\n'
NAMES = '\n[[tool.docpact.contract]]\nkind = "names"\nobject = "{}"\nnames = ["x"]\n'
DECORATED = '''"""A module."""


def keep(function):
    return function


@keep
def f(x):
    return x
'''


def project(root: Path, contracts: str, files: dict[str, str | bytes]) -> Path:
    """Write a project with these contracts (TOML) and files, and return its pyproject.toml."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    pyproject = root / "pyproject.toml"
    pyproject.write_text(PYPROJECT + contracts, encoding="utf-8")
    return pyproject


def found(pyproject: Path) -> list[str]:
    return [str(finding) for finding in check_project(load_config(pyproject))]


def test_a_divisor_function_without_a_docstring_is_reported_at_its_def(tmp_path: Path) -> None:
    """A divisor contract reads the body, so DP001 points at `def`, not at the decorator."""
    pyproject = project(tmp_path, DIVISOR.format("pk.m.f"), {"src/pk/m.py": DECORATED})
    line = line_of(tmp_path / "src/pk/m.py", "def f(x)")
    assert found(pyproject) == [f"src/pk/m.py:{line}: DP001 pk.m.f has no docstring"]


def test_a_names_object_without_a_docstring_is_reported_at_griffes_line(tmp_path: Path) -> None:
    """A names contract never reads the body: DP001 points where griffe puts the object."""
    pyproject = project(tmp_path, NAMES.format("pk.m.f"), {"src/pk/m.py": DECORATED})
    line = line_of(tmp_path / "src/pk/m.py", "@keep")
    assert found(pyproject) == [f"src/pk/m.py:{line}: DP001 pk.m.f has no docstring"]


def test_a_namespace_package_without_a_docstring_is_reported_at_line_1(tmp_path: Path) -> None:
    """A namespace package has no line in griffe; DP001 points at line 1 of its folder."""
    pyproject = project(tmp_path, NAMES.format("nsp"), {"src/nsp/a.py": '"""A."""\n'})
    assert found(pyproject) == ["src/nsp:1: DP001 nsp has no docstring"]


def test_a_function_known_only_from_its_stub_has_no_source_to_read(tmp_path: Path) -> None:
    """With a `.pyi` and no `.py`, DP001 says the divisor's body cannot be read, at the stub."""
    stub = '"""Stub."""\n\n\ndef f(x: int) -> int:\n    """Return `1 / x`."""\n'
    pyproject = project(tmp_path, DIVISOR.format("pk.m.f"), {"src/pk/m.pyi": stub})
    assert found(pyproject) == ["src/pk/m.pyi:4: DP001 pk.m.f has no source that docpact can read"]


@pytest.fixture
def inspected(tmp_path: Path) -> Iterator[Path]:
    """A project whose package `pk_inspected` is importable, removed from sys.modules after."""
    module = '"""A module."""\n\n\ndef f(x):\n    """Return it."""\n    return x\n'
    yield project(
        tmp_path,
        NAMES.format("pk_inspected") + NAMES.format("pk_inspected.m.f"),
        {"src/pk_inspected/__init__.py": '"""A package."""\n', "src/pk_inspected/m.py": module},
    )
    for name in [name for name in sys.modules if name.partition(".")[0] == "pk_inspected"]:
        del sys.modules[name]


def test_an_inspected_docstring_without_a_line_is_reported_at_its_object(inspected: Path) -> None:
    """Griffe's inspector gives docstrings no line: DP002 points at the object, else line 1."""
    config = load_config(inspected)
    extension = ContractExtension(config=config, log=False)
    loader = GriffeLoader(
        extensions=load_extensions(extension),
        search_paths=[inspected.parent / "src"],
        force_inspection=True,
    )
    loader.load("pk_inspected")
    message = "DP002 docstring of {} does not name identifier `x` as inline code"
    assert [str(finding) for finding in extension.findings] == [
        f"src/pk_inspected/__init__.py:1: {message.format('pk_inspected')}",
        f"src/pk_inspected/m.py:4: {message.format('pk_inspected.m.f')}",
    ]


def test_a_broken_module_of_a_namespace_package_in_a_later_path_is_blamed(tmp_path: Path) -> None:
    """A namespace package spans every search path; the broken module in `./` is reported."""
    pyproject = project(
        tmp_path,
        DIVISOR.format("nsp.b.g"),
        {"src/nsp/a.py": '"""A."""\n', "nsp/b.py": '"""B."""\n\ndef g(:\n'},
    )
    assert found(pyproject) == [
        "nsp/b.py:3: DP001 nsp.b.g cannot be loaded: nsp/b.py has a syntax error (invalid syntax)"
    ]


def test_a_broken_subpackage_init_is_blamed(tmp_path: Path) -> None:
    """The `__init__.py` of each package on the way to the object is read."""
    pyproject = project(
        tmp_path,
        DIVISOR.format("pk.sub.m.f"),
        {
            "src/pk/__init__.py": '"""Pk."""\n',
            "src/pk/sub/__init__.py": '"""Sub."""\nx = (\n',
            "src/pk/sub/m.py": '"""M."""\n',
        },
    )
    assert found(pyproject) == [
        "src/pk/sub/__init__.py:2: DP001 pk.sub.m.f cannot be loaded: "
        "src/pk/sub/__init__.py has a syntax error ('(' was never closed)"
    ]


def test_a_broken_module_beside_the_package_is_not_blamed(tmp_path: Path) -> None:
    """Only the files on the way from the package to the object are read, not `pk.py` beside."""
    pyproject = project(
        tmp_path,
        DIVISOR.format("pk.m.f"),
        {"src/pk/__init__.py": '"""Pk."""\n', "src/pk/m.py": '"""M."""\n', "src/pk.py": "x = (\n"},
    )
    line = line_of(pyproject, "[[tool.docpact.contract]]")
    assert found(pyproject) == [f"pyproject.toml:{line}: DP001 pk.m.f does not exist"]


def test_a_loading_error_without_a_message_is_named_by_its_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error griffe raises with a blank message is named by its class instead."""

    def fail(*args: object, **kwargs: object) -> None:
        msg = " \n "
        raise LoadingError(msg)

    monkeypatch.setattr(GriffeLoader, "load", fail)
    pyproject = project(tmp_path, DIVISOR.format("pk.m.f"), {"src/pk/m.py": DECORATED})
    line = line_of(pyproject, "[[tool.docpact.contract]]")
    assert found(pyproject) == [
        f"pyproject.toml:{line}: DP001 pk.m.f cannot be loaded: LoadingError"
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"x = 1\n", None),
        (b"\xef\xbb\xbfx = 1\n", None),  # a byte order mark, which Python accepts
        (b"\0x = 1\n", (1, "holds a NUL byte")),
        (b"\nx = 1  # \0\n\0\n", (2, "holds a NUL byte")),
        (b"\nx = 1  # \xff\n", (2, "cannot be read: not UTF-8 at line 2 (invalid start byte)")),
        (b"x = 1\ny = (\n", (2, "has a syntax error ('(' was never closed)")),
    ],
)
def test_unreadable_says_where_and_why(
    tmp_path: Path, content: bytes, problem: tuple[int, str] | None
) -> None:
    """The first NUL byte, the first byte that is not UTF-8, or the syntax error, by line."""
    file = tmp_path / "m.py"
    file.write_bytes(content)
    assert unreadable(file) == problem


def test_a_file_that_cannot_be_opened_is_unreadable_at_line_1(tmp_path: Path) -> None:
    assert unreadable(tmp_path / "gone.py") == (1, "cannot be read: No such file or directory")


def test_a_warning_while_parsing_names_the_file(tmp_path: Path) -> None:
    """Python's warnings about the source (an invalid escape) point at the file read."""
    file = tmp_path / "m.py"
    file.write_text('x = "\\d"\n', encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert unreadable(file) is None
    assert [(warning.filename, warning.lineno) for warning in caught] == [(str(file), 1)]


PKGUTIL_INIT = (
    '__path__ = __import__("pkgutil").extend_path(__path__, __name__)\n\n\n'
    "def f(x):\n    return 1 / x\n"
)
INIT_STUB = '"""Stub."""\n\n\ndef f(x: float) -> float:\n    """Return `1 / x`."""\n'


def test_a_stub_griffe_prefers_to_its_module_still_has_the_modules_body_read(
    tmp_path: Path,
) -> None:
    """A pkgutil-style `__init__.py` yields to its stub in griffe: the body is still the .py's."""
    files = {"src/pk/__init__.py": PKGUTIL_INIT, "src/pk/__init__.pyi": INIT_STUB}
    assert found(project(tmp_path, DIVISOR.format("pk.f"), files)) == []


def test_a_stub_whose_def_is_not_on_the_modules_line_has_no_source_to_read(
    tmp_path: Path,
) -> None:
    """The body read must be the stub's function: a `def` on another line of the .py is not."""
    files = {
        "src/pk/__init__.py": PKGUTIL_INIT.replace("\n\ndef f", "\n\n\ndef f"),
        "src/pk/__init__.pyi": INIT_STUB,
    }
    assert found(project(tmp_path, DIVISOR.format("pk.f"), files)) == [
        "src/pk/__init__.pyi:4: DP001 pk.f has no source that docpact can read"
    ]


def test_a_module_with_a_byte_order_mark_has_its_body_read(tmp_path: Path) -> None:
    module = '\ufeff"""P."""\n\n\ndef f(x):\n    """Return `1 / x`."""\n    return 1 / x\n'
    assert found(project(tmp_path, DIVISOR.format("pk.f"), {"src/pk/__init__.py": module})) == []


def test_a_warning_while_reading_a_functions_body_names_the_file(tmp_path: Path) -> None:
    """Both reads of the module, griffe's and docpact's, warn at its path and line."""
    module = '"""P."""\n\n\ndef f(x):\n    """Return `s / x`."""\n    return "\\d" / x\n'
    pyproject = project(tmp_path, DIVISOR.format("pk.f"), {"src/pk/__init__.py": module})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert found(pyproject) == []
    path = str(tmp_path / "src/pk/__init__.py")
    assert [(warning.filename, warning.lineno) for warning in caught] == [(path, 6), (path, 6)]
