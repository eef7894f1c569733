# SPDX-License-Identifier: MIT
"""The units of code under test: which function a line that ran belongs to, and fingerprints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docpact.claims._units import Units, split

if TYPE_CHECKING:
    from pathlib import Path

SOURCE = """\
import functools


def outer(a, b=len("default")):
    def inner():
        return a
    return inner()


class Shape:
    sides = 4

    @property
    def area(self):
        return self._area

    @area.setter
    def area(self, value):
        self._area = value

    @functools.cached_property
    def name(self):
        return "shape"

    class Inner:
        async def deep(self):
            return 1


if True:
    def compat():
        return "new"
else:
    def compat():
        return "old"

VALUE = outer(1)
"""


def _units(tmp_path: Path, text: str = SOURCE) -> Units:
    (tmp_path / "m.py").write_text(text, encoding="utf-8")
    return Units(tmp_path)


def _line(text: str) -> int:
    """The 1-based line of SOURCE that holds `text`."""
    return next(n for n, line in enumerate(SOURCE.splitlines(), 1) if text in line)


def test_a_line_belongs_to_the_innermost_unit_whose_body_holds_it(tmp_path: Path) -> None:
    units = _units(tmp_path)
    ran = [_line("return a"), _line("return inner()"), _line("return 1")]
    assert [unit.name for unit in units.executed("m.py", ran)] == [
        "m.py::outer",  # a function defined inside another is part of it
        "m.py::Shape.Inner.deep",
    ]


def test_definition_time_lines_belong_to_no_unit(tmp_path: Path) -> None:
    """Decorators, `def` lines, default values, class bodies and module statements."""
    units = _units(tmp_path)
    lines = [
        _line("def outer"),
        _line("sides = 4"),
        _line("@property"),
        _line("def area(self):"),
        _line("@functools.cached_property"),
        _line("VALUE = "),
        _line("if True"),
    ]
    assert units.executed("m.py", lines) == []


def test_definitions_that_share_a_name_are_one_unit(tmp_path: Path) -> None:
    """A property's getter and setter; a function defined in both branches of an `if`."""
    units = _units(tmp_path)
    setter, old = _line("self._area = value"), _line('return "old"')
    assert [unit.name for unit in units.executed("m.py", [setter, old])] == [
        "m.py::Shape.area",
        "m.py::compat",
    ]
    area = units.get("m.py::Shape.area")
    assert area is not None
    assert area.first == _line("@property")
    assert area.spans == (
        (_line("return self._area"), _line("return self._area")),
        (setter, setter),
    )
    assert units.get("m.py::Shape.name").first == _line("@functools.cached_property")


def test_a_fingerprint_changes_with_the_code_not_its_docstring_comments_or_layout(
    tmp_path: Path,
) -> None:
    names = ["m.py::outer", "m.py::Shape.area", "m.py::compat"]
    before = {name: _units(tmp_path).get(name).fingerprint for name in names}
    reformatted = SOURCE.replace(
        'def outer(a, b=len("default")):\n',
        'def outer(\n    a, b=len("default")\n):  # a comment\n    """A docstring."""\n',
    )
    assert {name: _units(tmp_path, reformatted).get(name).fingerprint for name in names} == before
    changed = SOURCE.replace("self._area = value", "self._area = abs(value)").replace(
        'return "old"', 'return "older"'
    )
    after = {name: _units(tmp_path, changed).get(name).fingerprint for name in names}
    assert [name for name in names if after[name] != before[name]] == names[1:]


def test_a_file_that_does_not_parse_or_is_gone_has_no_units(tmp_path: Path) -> None:
    units = _units(tmp_path, "def broken(:\n    pass\n")
    assert units.of("m.py") is None
    assert units.executed("m.py", [1, 2]) == []
    assert units.of("gone.py") is None
    assert units.get("gone.py::f") is None


def test_split_gives_the_file_and_the_qualified_name() -> None:
    assert split("pkg/m.py::Shape.area") == ("pkg/m.py", "Shape.area")


def test_a_file_whose_blob_is_the_reviews_is_not_parsed_again(tmp_path: Path) -> None:
    """The same bytes give the same units: DP019 reads only the files that changed."""
    from docpact.claims._ledger import blob_id

    units = _units(tmp_path)
    recorded = {"m.py::outer": units.get("m.py::outer").fingerprint}  # type: ignore[union-attr]
    blob = blob_id((tmp_path / "m.py").read_bytes())
    (tmp_path / "m.py").write_text(SOURCE.replace("return a", "return b"), encoding="utf-8")
    later = Units(tmp_path)
    # A blob that is the review's says unchanged, without a parse: stale here, on purpose.
    assert later.changed(recorded, {"m.py": later.blob("m.py") or ""}) == []
    assert "m.py" not in later._files
    # The review's own blob differs from the file's now: the file is read, the unit changed.
    [(name, unit)] = later.changed(recorded, {"m.py": blob})
    assert (name, unit.name if unit else None) == ("m.py::outer", "m.py::outer")


def test_fingerprints_a_run_took_of_the_same_bytes_are_used_without_a_parse(
    tmp_path: Path,
) -> None:
    """A run's fingerprints stand for the file while its bytes keep the run's blob id."""
    from docpact.claims._ledger import blob_id

    units = _units(tmp_path)
    reviewed = {"m.py::outer": units.get("m.py::outer").fingerprint}  # type: ignore[union-attr]
    review_blob = blob_id((tmp_path / "m.py").read_bytes())
    (tmp_path / "m.py").write_text("# moved\n" + SOURCE, encoding="utf-8")  # layout only
    now = blob_id((tmp_path / "m.py").read_bytes())
    ran = Units(tmp_path)
    taken = {"m.py::outer": ran.get("m.py::outer").fingerprint}  # type: ignore[union-attr]
    assert taken == reviewed

    later = Units(tmp_path)
    later.take(taken, {"m.py": now})
    assert later.changed(reviewed, {"m.py": review_blob}) == []
    assert "m.py" not in later._files  # the run's fingerprint, not a parse
    # A run that took another fingerprint of these bytes (another docpact's, or a file
    # written by hand) is not taken on trust: the file is parsed, and the parse decides.
    other = Units(tmp_path)
    other.take({"m.py::outer": "0" * 12}, {"m.py": now})
    assert other.changed(reviewed, {"m.py": review_blob}) == []
    assert "m.py" in other._files
    # Two runs that disagree on the same bytes vouch for nothing, in either order.
    for first, second in ((taken, {"m.py::outer": "0" * 12}), ({"m.py::outer": "0" * 12}, taken)):
        both = Units(tmp_path)
        both.take(first, {"m.py": now})
        both.take(second, {"m.py": now})
        assert both.changed(reviewed, {"m.py": review_blob}) == []
        assert "m.py" in both._files
    # Fingerprints of other bytes (the file edited since the run) are not used: it is parsed.
    (tmp_path / "m.py").write_text(SOURCE.replace("return a", "return b"), encoding="utf-8")
    edited = Units(tmp_path)
    edited.take(taken, {"m.py": now})
    [(name, unit)] = edited.changed(reviewed, {"m.py": review_blob})
    assert (name, unit.name if unit else None) == ("m.py::outer", "m.py::outer")
    assert "m.py" in edited._files
    # A unit the run did not fingerprint is read from the file.
    partial = Units(tmp_path)
    partial.take({"m.py::compat": "0" * 12}, {"m.py": blob_id((tmp_path / "m.py").read_bytes())})
    assert [name for name, _ in partial.changed(reviewed, {"m.py": review_blob})] == ["m.py::outer"]


def test_a_units_blob_is_of_the_bytes_its_units_came_from(tmp_path: Path) -> None:
    """A file edited after its units were read keeps the blob of what was read."""
    from docpact.claims._ledger import blob_id

    units = _units(tmp_path)
    before = blob_id((tmp_path / "m.py").read_bytes())
    assert units.get("m.py::outer") is not None
    (tmp_path / "m.py").write_text(SOURCE + "\nX = 2\n", encoding="utf-8")
    assert units.blob("m.py") == before
    # The other way round: the blob read first, the units are of the bytes it is of.
    later = Units(tmp_path)
    blob = later.blob("m.py")
    (tmp_path / "m.py").write_text(SOURCE.replace("return a", "return b"), encoding="utf-8")
    now, then = later.get("m.py::outer"), units.get("m.py::outer")
    assert now is not None
    assert then is not None
    assert now.fingerprint == then.fingerprint  # `return a`, not the edit's `return b`
    assert blob != before


def test_locate_follows_an_import_that_rebinds_a_name_the_module_defines(tmp_path: Path) -> None:
    """A fallback defined, then replaced by an import when it works: griffe says which."""
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "def compute():\n    return 0\n\n\ntry:\n    from pkg._fast import compute\n"
        "except ImportError:\n    pass\n",
        encoding="utf-8",
    )
    (package / "_fast.py").write_text("def compute():\n    return 1\n", encoding="utf-8")
    (package / "plain.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    units = Units(tmp_path)
    assert units.locate("pkg.compute", ("src",)) == "src/pkg/_fast.py::compute"
    assert units.locate("pkg.plain.f", ("src",)) == "src/pkg/plain.py::f"
