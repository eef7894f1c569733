# SPDX-License-Identifier: MIT
"""Tests for the public surface of rolloutnorm: exports, docstrings, imports and package data."""

from __future__ import annotations

import importlib.resources
import inspect
import re
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest
import yaml

import rolloutnorm


def _public_callables() -> Iterator[tuple[str, Callable[..., object]]]:
    """Every public function and every public method defined on a public class."""
    for name in rolloutnorm.__all__:
        obj = getattr(rolloutnorm, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and inspect.isfunction(member):
                    yield f"{name}.{attr}", member


def _documented_objects() -> Iterator[tuple[str, object]]:
    """Every public name, plus the public methods and properties of public classes."""
    for name in rolloutnorm.__all__:
        obj = getattr(rolloutnorm, name)
        yield name, obj
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and (
                    inspect.isfunction(member) or isinstance(member, property)
                ):
                    yield f"{name}.{attr}", member


def _section(doc: str, title: str) -> str | None:
    """The indented body of a Google-style docstring section, or None if it is absent."""
    lines = inspect.cleandoc(doc).splitlines()
    if f"{title}:" not in lines:
        return None
    body = []
    for line in lines[lines.index(f"{title}:") + 1 :]:
        if line.strip() and not line[0].isspace():
            break
        body.append(line)
    return "\n".join(body)


def test_every_exported_name_imports_from_the_root() -> None:
    """Every name in rolloutnorm.__all__ is importable from the package root."""
    namespace: dict[str, object] = {}
    exec("from rolloutnorm import *", namespace)
    for name in rolloutnorm.__all__:
        assert getattr(rolloutnorm, name) is namespace[name]


def test_all_is_sorted_and_unique() -> None:
    """rolloutnorm.__all__ is sorted and names each export once."""
    assert list(rolloutnorm.__all__) == sorted(set(rolloutnorm.__all__))


def test_exports_come_from_rolloutnorm() -> None:
    """Every export is defined inside rolloutnorm, not re-exported from a dependency."""
    for name in rolloutnorm.__all__:
        module = getattr(rolloutnorm, name).__module__
        assert module == "rolloutnorm" or module.startswith("rolloutnorm."), name


@pytest.mark.parametrize("name", list(dict(_documented_objects())))
def test_public_object_has_a_summary_line(name: str) -> None:
    """Every public function, class, method and property has a docstring opening on a summary."""
    obj = dict(_documented_objects())[name]
    doc = obj.__doc__ if not isinstance(obj, property) else obj.fget.__doc__
    assert doc, f"{name} has no docstring"
    if inspect.isclass(obj):
        assert "__doc__" in vars(obj), f"{name} inherits or generates its docstring"
        assert not doc.startswith(f"{obj.__name__}("), f"{name} has a generated docstring"
    lines = inspect.cleandoc(doc).splitlines()
    assert lines[0].strip().endswith("."), f"{name}: summary line {lines[0]!r}"
    assert len(lines) == 1 or not lines[1].strip(), f"{name}: no blank line after the summary"


@pytest.mark.parametrize("name", list(dict(_public_callables())))
def test_function_docstring_has_args_and_returns(name: str) -> None:
    """A public function lists every argument under Args: and has Returns: if it returns a value."""
    function = dict(_public_callables())[name]
    doc = inspect.getdoc(function) or ""
    signature = inspect.signature(function)
    params = [p for p in signature.parameters.values() if p.name not in ("self", "cls")]
    if params:
        args = _section(doc, "Args")
        assert args is not None, f"{name} takes arguments but has no Args: section"
        for param in params:
            stars = {
                inspect.Parameter.VAR_POSITIONAL: "*",
                inspect.Parameter.VAR_KEYWORD: "**",
            }.get(param.kind, "")
            pattern = rf"^\s+{re.escape(stars + param.name)}( \(.*\))?:"
            assert re.search(pattern, args, re.MULTILINE), f"{name}: {param.name} not in Args:"
        listed = set(re.findall(r"^    \**(\w+)(?: \(.*\))?:", args, re.MULTILINE))
        assert listed <= {p.name for p in params}, f"{name}: Args: lists unknown names"
    if signature.return_annotation not in (None, "None", inspect.Signature.empty):
        assert _section(doc, "Returns") is not None, f"{name} returns a value but has no Returns:"


def test_normalize_docstring_names_both_operands_as_inline_code() -> None:
    """The docstring of normalize_advantages_by_rollout names both divisor operands as code."""
    doc = rolloutnorm.normalize_advantages_by_rollout.__doc__
    for operand in ("rollout_token_count", "num_trained_rows"):
        assert re.search(rf"(?<!`)`{operand}`(?!`)", doc), operand


def _modules_after(statement: str) -> set[str]:
    """The names in sys.modules of a fresh interpreter after running statement."""
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(result.stdout.split())


def test_rolloutnorm_does_not_import_docpact() -> None:
    """Importing rolloutnorm leaves docpact unimported."""
    modules = _modules_after("import rolloutnorm")
    assert "rolloutnorm" in modules
    assert not {m for m in modules if m == "docpact" or m.startswith("docpact.")}


def test_config_yaml_is_package_data() -> None:
    """The packaged config.yaml is reachable through importlib.resources as a YAML mapping."""
    resource = importlib.resources.files("rolloutnorm").joinpath("config.yaml")
    assert resource.is_file()
    assert isinstance(yaml.safe_load(resource.read_text("utf-8")), dict)


def test_error_is_a_value_error() -> None:
    """RolloutNormError subclasses ValueError so existing handlers catch it."""
    assert issubclass(rolloutnorm.RolloutNormError, ValueError)


def test_retention_plan_reasons_are_the_exported_drop_reason() -> None:
    """A plan's drop reasons are instances of rolloutnorm.DropReason, exported from the root."""
    plan = rolloutnorm.plan_retention(3, mini_batch_size=2)
    assert "DropReason" in rolloutnorm.__all__
    assert all(isinstance(r, rolloutnorm.DropReason) for r in plan.drop_reasons.values())
