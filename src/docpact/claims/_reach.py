# SPDX-License-Identifier: MIT
"""The code under test: the project's own code that a property reaches, found statically.

Starting from the property and the test code it uses (its module's definitions, and those
of the properties folders' modules it imports), every name and attribute is resolved, by
this rule, to the project's own code (`docpact.claims._project`):

- a name, through the module's definitions and imports, re-exports followed
  (`from pkg import f`, where `pkg/__init__.py` imports `f` from `pkg._f`);
- a module's attribute (`pkg.sub.f`), a class's attribute (`Plan.build`);
- an attribute of an object whose class is known (`plan.update_units`): the object was
  made by calling the class, is a parameter or attribute annotated with it, is `self` or
  `cls`, is the loop variable over a parameter annotated as a collection of it
  (`list[Plan]`), is what the pytest fixture of its name returns, or was returned by a call
  whose function is annotated to return it (or, without an annotation, returns it): its
  class's methods, properties and fields, bases included;
- calling a class reaches its special methods (`__init__`, `__post_init__`, `__call__`,
  `__missing__`...), its bases' included: Python calls them without naming them.

Each function, method, class body (its fields and decorators, without its methods) and
module-level assignment so reached is a *unit* of the code under test, fingerprinted as the
property's code is (docstrings and formatting do not count), and followed in turn. A
library's or a builtin's names are not followed. What the rule cannot resolve is listed,
never dropped: an attribute of an object of unknown class, when some class reached (of the
project or of the tests) defines a method of that name that no builtin type has (`split`,
`items` and `__init__` are taken for a builtin's), and a name a project module neither defines nor
imports. Parameters called as functions and pytest fixtures are not followed.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from docpact.claims._definitions import walk
from docpact.claims._fingerprint import canonical

if TYPE_CHECKING:
    from pathlib import Path

    from docpact.claims._project import Module, Modules

__all__ = ["Reach", "Reacher", "Unit"]

_CLAIM_DECORATORS = frozenset({"claim", "docpact_claim"})
# The methods of builtin types: an object of unknown class calling one is most often a builtin.
_BUILTIN_METHODS = frozenset(
    name
    for kind in (str, bytes, int, float, list, tuple, dict, set, frozenset, object)
    for name in dir(kind)
)
_COLLECTIONS = frozenset(
    {"list", "List", "Sequence", "Iterable", "Iterator", "Collection", "set", "frozenset"}
    | {"tuple", "Tuple", "Set", "FrozenSet", "MutableSequence"}
)
_PROPERTIES = frozenset({"property", "cached_property"})


@dataclass(frozen=True, order=True)
class Unit:
    """One piece of the code under test.

    Attributes:
        name: Its dotted name: `pkg.mod.f`, `pkg.mod.Class`, `pkg.mod.Class.method`, or
            `pkg.mod.NAME` for an assignment.
        path: Its file, relative to the project root, with forward slashes.
        line: Its first line (a decorator's, for a decorated definition).
        end: Its last line.
        fingerprint: 12 hex digits of the SHA-256 of its canonical syntax tree.
    """

    name: str
    path: str
    line: int
    end: int
    fingerprint: str


@dataclass(frozen=True)
class Reach:
    """The code under test of one property.

    Attributes:
        units: The units reached, by name.
        unresolved: What could not be resolved, as `path:line: what`, sorted.
    """

    units: tuple[Unit, ...] = ()
    unresolved: tuple[str, ...] = ()

    @property
    def by_name(self) -> dict[str, str]:
        """Each unit name's fingerprint.

        Units that share a name (a property's getter and setter, the definitions of two
        branches) share one, of their fingerprints together.
        """
        prints: dict[str, list[str]] = {}
        for unit in self.units:
            prints.setdefault(unit.name, []).append(unit.fingerprint)
        return {
            name: found[0]
            if len(found) == 1
            else hashlib.sha256(" ".join(sorted(found)).encode()).hexdigest()[:12]
            for name, found in prints.items()
        }

    @property
    def fingerprint(self) -> str:
        """12 hex digits of the SHA-256 of every unit's name and fingerprint."""
        text = "\n".join(f"{unit.name}={unit.fingerprint}" for unit in self.units)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True, eq=False)
class _Def:
    """A definition: a module-level statement, a class's member, or a module itself."""

    module: Module
    node: ast.stmt | None  # None: the module
    qual: str = ""
    owner: _Def | None = None  # the class of a method or field

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Def) and _key(self) == _key(other)

    def __hash__(self) -> int:
        return hash(_key(self))


@dataclass(frozen=True)
class _Instance:
    """An object whose class is known."""

    cls: _Def


class _External:
    """A library's or a builtin's name: neither followed nor listed."""


_EXTERNAL = _External()

_Value = _Def | _Instance | _External


@dataclass
class _Scan:
    edges: list[_Def] = field(default_factory=list)
    returns: _Value | None = None
    unknown: list[tuple[Path, int, str, str]] = field(default_factory=list)


class Reacher:
    """What the properties of one reading reach, each definition scanned once.

    Args:
        modules: The project's modules, as this reading finds them.
        root: The project root, which unit paths are relative to.
    """

    def __init__(self, modules: Modules, root: Path) -> None:
        self._modules = modules
        self._root = root
        self._scans: dict[tuple[Path, int, str], _Scan] = {}
        self._active: dict[tuple[Path, int, str], int] = {}  # scans under way, by depth
        self._lowest = 1  # the lowest depth of an unfinished scan read since the last kept
        self._units: dict[tuple[Path, int, str], Unit] = {}
        self.start: _Def | None = None  # the property being reached
        self.seeds: dict[tuple[Path, int, str], dict[str, _Value]] = {}  # fixtures' values

    def reach(
        self,
        module: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        cls: ast.ClassDef | None = None,
    ) -> Reach:
        """The code under test of the property `function` of test module `module`.

        Args:
            module: The property's test module.
            function: The property.
            cls: The class of a method property, else `None`.

        Returns:
            The units and what could not be resolved.
        """
        owner = _Def(module, cls, cls.name) if cls is not None else None
        start = _Def(module, function, function.name, owner)
        self.start = start
        seen: dict[tuple[Path, int, str], _Def] = {}
        queue = [start] if owner is None else [start, owner]
        unknown: list[tuple[Path, int, str, str]] = []
        requesters = {_key(start)}  # the property and its fixtures: they request fixtures
        while queue:
            definition = queue.pop()
            key = _key(definition)
            if key in seen:
                continue
            seen[key] = definition
            if key in requesters and isinstance(definition.node, _FUNCTIONS):
                fixtures = self._seeded(definition)
                requesters |= {_key(f) for _, f in fixtures}
                queue += [f for _, f in fixtures]
            scan = self._scan(definition)
            unknown += scan.unknown
            queue += scan.edges
        own = [d for d in seen.values() if d.module.own and d.node is not None]
        methods = {  # of every class reached, the test code's too
            m.name
            for d in seen.values()
            if isinstance(d.node, ast.ClassDef)
            for m in d.node.body
            if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        unresolved = {
            f"{self._relative(path)}:{line}: {text} "
            f"({'an object of unknown class' if why == 'method' else why})"
            for path, line, text, why in unknown
            if why != "method" or text.rpartition(".")[2] in methods - _BUILTIN_METHODS
        }
        return Reach(tuple(sorted(self._unit(d) for d in own)), tuple(sorted(unresolved)))

    def _seeded(self, definition: _Def) -> list[tuple[str, _Def]]:
        """The fixtures a function requests, its parameters' values set from them.

        A parameter is what its fixture returns (or yields); a fixture's own parameters are
        set first, depth first, so that a fixture built from another one is read with it.
        """
        assert isinstance(definition.node, _FUNCTIONS)
        key = _key(definition)
        fixtures = self._fixtures(definition.module, definition.node)
        if key not in self.seeds:
            self.seeds[key] = {}  # a fixture that requests itself, through others, stops here
            for _, fixture in fixtures:
                if isinstance(fixture.node, _FUNCTIONS):
                    self._seeded(fixture)
            self.seeds[key] = {
                name: found
                for name, f in fixtures
                if isinstance(found := self.returns(f), _Def | _Instance)
            }
        return fixtures

    def _fixtures(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[str, _Def]]:
        """The pytest fixtures a test function's parameters request, found as pytest finds them.

        A fixture is a function decorated with `pytest.fixture` (or `fixture`), named by
        its `name=` or its own name, in the test's module, else in the `conftest.py` of its
        folder or of a folder above it, within the properties folders.
        """
        arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
        wanted = {argument.arg for argument in arguments} - {"self", "cls"}
        found: list[tuple[str, _Def]] = []
        for place in self._modules.fixture_modules(module):
            for node in place.tree.body:
                if not isinstance(node, _FUNCTIONS):
                    continue
                for decorator in node.decorator_list:
                    if _name(decorator) != "fixture":
                        continue
                    name = node.name
                    for keyword in getattr(decorator, "keywords", []):
                        if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                            name = str(keyword.value.value)
                    if name in wanted:
                        wanted.discard(name)
                        found.append((name, _Def(place, node, node.name)))
        return found

    def _relative(self, path: Path) -> str:
        return path.relative_to(self._root).as_posix() if self._root in path.parents else str(path)

    def _unit(self, definition: _Def) -> Unit:
        key = _key(definition)
        if key not in self._units:
            node = definition.node
            assert node is not None
            if isinstance(node, ast.ClassDef):  # its own statements; its methods are units
                body = [s for s in node.body if not isinstance(s, _FUNCTIONS)]
                node = ast.ClassDef(
                    name=node.name,
                    bases=node.bases,
                    keywords=node.keywords,
                    body=body,
                    decorator_list=node.decorator_list,
                    type_params=getattr(node, "type_params", []),
                )
                first = definition.node
            else:
                first = node
            line = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
            dumped = canonical(node, set(), set())
            self._units[key] = Unit(
                f"{definition.module.name}.{definition.qual}",
                self._relative(definition.module.path),
                line,
                first.end_lineno or first.lineno,
                hashlib.sha256(dumped.encode("utf-8")).hexdigest()[:12],
            )
        return self._units[key]

    def _scan(self, definition: _Def) -> _Scan:
        """A definition's scan, kept once complete.

        A scan that read an unfinished one (a recursive call sees no return type yet) is
        redone when asked again, so that what a property reaches never depends on which
        property was read first.
        """
        key = _key(definition)
        if (done := self._scans.get(key)) is not None:
            return done
        if key in self._active:
            self._lowest = min(self._lowest, self._active[key])
            return _Scan()
        depth = self._active[key] = len(self._active)
        try:
            scan = _Scanner(self, definition).run()
        finally:  # a RecursionError leaves nothing half made behind
            del self._active[key]
        if self._lowest >= depth:  # it read no unfinished scan but its own
            self._scans[key] = scan
            self._lowest = len(self._active) + 1
        return scan

    # What a scanner asks of the reading.
    def lookup(self, module: Module, name: str) -> tuple[list[_Def], str]:
        """The definitions a module-level name is, and why not when it is missing.

        A library's or a builtin's name is no definition, and not missing either.
        """
        found = self._modules.lookup(module, name)
        if found.missing:
            return [], found.missing
        if found.module is None:
            return [], "external"
        if not found.statements:
            return [_Def(found.module, None, "")], ""
        return [_Def(found.module, s, _qual(s, name)) for s in found.statements], ""

    def imported(
        self, module: Module, node: ast.Import | ast.ImportFrom, alias: ast.alias
    ) -> list[_Def]:
        """What one name of an import statement is, in `module`."""
        found = self._modules.imported(module, node, alias)
        if found.module is None:
            return []
        if not found.statements:
            return [_Def(found.module, None, "")]
        return [
            _Def(found.module, s, _qual(s, alias.asname or alias.name)) for s in found.statements
        ]

    def returns(self, definition: _Def) -> _Value | None:
        """The class of what calling a function gives: its annotation, else its returns."""
        node = definition.node
        if not isinstance(node, _FUNCTIONS):
            return None
        if node.returns is not None:
            return _Scanner(self, definition).annotation(node.returns)
        return self._scan(definition).returns


def _first(index: ast.expr) -> ast.expr | None:
    """A subscript's first argument: `C` of `list[C]` or `dict[C, D]`; none of `tuple[()]`."""
    if isinstance(index, ast.Tuple):
        return index.elts[0] if index.elts else None
    return index


def _key(definition: _Def) -> tuple[Path, int, str]:
    node = definition.node
    return (definition.module.path, node.lineno if node is not None else 0, definition.qual)


def _qual(statement: ast.stmt, name: str) -> str:
    if isinstance(statement, _FUNCTIONS | ast.ClassDef):
        return statement.name
    return name


_FUNCTIONS = ast.FunctionDef | ast.AsyncFunctionDef


class _Scanner:
    """One definition's scan: what its code refers to, in its module's and its own scope."""

    def __init__(self, reacher: Reacher, definition: _Def) -> None:
        self.reacher = reacher
        self.definition = definition
        self.module = definition.module
        self.scan = _Scan()
        self.env: dict[str, _Value] = {}
        self.local: set[str] = set()
        self.memo: dict[int, _Value | None] = {}
        self.elements: dict[str, _Value] = {}  # the item class of annotated collections

    def run(self) -> _Scan:
        node = self.definition.node
        if node is None:  # a module: what its code does at import is not followed
            return self.scan
        if self.definition.owner is not None and self.definition.owner.node is not None:
            self.scan.edges.append(self.definition.owner)  # a member's class body counts
        roots = self._roots(node)
        nodes = [sub for root in roots for sub in walk(root)]
        if isinstance(node, _FUNCTIONS):
            nodes += walk(node.args)
        for sub in nodes:
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
                self.local.add(sub.id)
            elif isinstance(sub, ast.arg):
                self.local.add(sub.arg)
            elif (
                isinstance(sub, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and sub.name
            ) or (isinstance(sub, _FUNCTIONS | ast.ClassDef) and sub is not node):
                self.local.add(sub.name)
            elif isinstance(sub, ast.Global | ast.Nonlocal):
                self.local.difference_update(sub.names)
            elif isinstance(sub, ast.Import | ast.ImportFrom) and sub is not node:
                self._imported(sub)
        if isinstance(node, _FUNCTIONS):
            self._parameters(node)
            self.env.update(self.reacher.seeds.get(_key(self.definition), {}))
        for sub in sorted(
            (
                n
                for n in nodes
                if isinstance(n, ast.Assign | ast.AnnAssign | ast.NamedExpr | ast.For)
            ),
            key=lambda n: (n.lineno, n.col_offset),
        ):
            if isinstance(sub, ast.For):
                self._looped(sub)
            else:
                self._assigned(sub)
        for sub in nodes:
            if isinstance(sub, ast.Name | ast.Attribute | ast.Call):
                self.value(sub)
        if isinstance(node, _FUNCTIONS):
            returned = [  # a generator fixture's value is what it yields
                self.value(sub.value)
                for sub in nodes
                if isinstance(sub, ast.Return | ast.Yield) and sub.value is not None
            ]
            first = returned[0] if returned else None
            if isinstance(first, _Def | _Instance) and all(r == first for r in returned):
                self.scan.returns = first
        return self.scan

    def _roots(self, node: ast.stmt) -> list[ast.AST]:
        """What runs of a definition: a function's decorators, defaults and body.

        A property's claim decorator is left out: it binds, it does not test.
        """
        if isinstance(node, _FUNCTIONS):
            arguments = node.args
            defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d)]
            decorators = node.decorator_list
            if self.definition is self.reacher.start:
                decorators = [d for d in decorators if _name(d) not in _CLAIM_DECORATORS]
            return [*decorators, *defaults, *node.body]
        if isinstance(node, ast.ClassDef):
            body = [s for s in node.body if not isinstance(s, _FUNCTIONS | ast.ClassDef)]
            return [*node.decorator_list, *node.bases, *node.keywords, *body]
        return [node]

    def _imported(self, node: ast.Import | ast.ImportFrom) -> None:
        """A function's own import: its names are what the import names."""
        for alias in node.names:
            name = (alias.asname or alias.name).partition(".")[0]
            found = self.reacher.imported(self.module, node, alias)
            if found:
                self.env[name] = found[0]
                self.scan.edges += found
            else:
                self.local.add(name)

    def _parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        owner = self.definition.owner
        decorators = {_name(d) for d in node.decorator_list}
        for n, argument in enumerate(arguments):
            if argument.annotation is not None:
                if (found := self.annotation(argument.annotation)) is not None:
                    self.env[argument.arg] = found
                elif (element := self._element(argument.annotation)) is not None:
                    self.elements[argument.arg] = element
            elif n == 0 and owner is not None and "staticmethod" not in decorators:
                self.env[argument.arg] = owner if "classmethod" in decorators else _Instance(owner)

    def _element(self, node: ast.expr) -> _Value | None:
        """The class of an annotated collection's items: `list[C]`, `Sequence[C]`..."""
        if not isinstance(node, ast.Subscript) or _name(node.value) not in _COLLECTIONS:
            return None
        inner = _first(node.slice)
        return None if inner is None else self.annotation(inner)

    def _looped(self, node: ast.For) -> None:
        """`for x in items`, where `items` is annotated as a collection of a class."""
        named = isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Name)
        if named and (element := self.elements.get(node.iter.id)) is not None:  # type: ignore[union-attr]
            self.env[node.target.id] = element  # type: ignore[union-attr]

    def _assigned(self, node: ast.Assign | ast.AnnAssign | ast.NamedExpr) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return
        found = None
        if isinstance(node, ast.AnnAssign):
            found = self.annotation(node.annotation)
            if found is None and (element := self._element(node.annotation)) is not None:
                self.elements[targets[0].id] = element
        if found is None and node.value is not None:
            found = self.value(node.value)
        if isinstance(found, _Def | _Instance):
            self.env[targets[0].id] = found

    def annotation(self, node: ast.expr) -> _Value | None:
        """The class an annotation names, when it is one of the project's own."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except (SyntaxError, ValueError):  # ValueError: a NUL in the string
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.annotation(node.left) or self.annotation(node.right)
        if isinstance(node, ast.Subscript) and _name(node.value) in {"Optional", "Annotated"}:
            inner = _first(node.slice)
            return None if inner is None else self.annotation(inner)
        if isinstance(node, ast.Name | ast.Attribute):
            found = self._static(node)
            if isinstance(found, _Def) and isinstance(found.node, ast.ClassDef):
                return _Instance(found)
        return None

    def _static(self, node: ast.expr, depth: int = 0) -> _Value | None:
        """A name or attribute resolved in the module's scope, nothing reached.

        A module-level alias (`Plan = plans.Plan`) is what it names.
        """
        if depth > 20:
            return None
        if isinstance(node, ast.Name):
            found, _ = self.reacher.lookup(self.module, node.id)
            first = found[0] if found else None
            value = getattr(first.node, "value", None) if first is not None else None
            alias = isinstance(first, _Def) and isinstance(first.node, ast.Assign | ast.AnnAssign)
            if alias and isinstance(value, ast.Name | ast.Attribute):
                return _Scanner(self.reacher, first)._static(value, depth + 1)  # type: ignore[arg-type]
            return first
        if isinstance(node, ast.Attribute):
            base = self._static(node.value, depth + 1)
            if isinstance(base, _Def) and base.node is None:  # a module's name
                found, _ = self.reacher.lookup(base.module, node.attr)
                return found[0] if found else None
            if isinstance(base, _Def):
                found = self._member(base, node.attr)
                return found[0] if found else None
        return None

    def value(self, node: ast.expr) -> _Value | None:
        """What an expression is, where it is the project's; what it names is reached."""
        if id(node) not in self.memo:
            self.memo[id(node)] = None  # against cycles through the memo
            self.memo[id(node)] = self._value(node)
        return self.memo[id(node)]

    def _value(self, node: ast.expr) -> _Value | None:
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            if node.id in self.local:
                return None
            found, missing = self.reacher.lookup(self.module, node.id)
            if missing == "external":
                return _EXTERNAL
            if missing:
                self._unknown(node, node.id, missing)
            return self._reached(found)
        if isinstance(node, ast.Attribute):
            base = self.value(node.value)
            if isinstance(base, _External):
                return _EXTERNAL
            if isinstance(base, _Instance):
                return self._attribute(base.cls, node.attr, instance=True)
            if isinstance(base, _Def):
                return self._attribute(base, node.attr, instance=False)
            if isinstance(node.ctx, ast.Load):
                self._unknown(node, f"{_text(node.value)}.{node.attr}", "method")
            return None
        if isinstance(node, ast.Call):
            if _name(node.func) == "super" and not node.args and self.definition.owner:
                return self._super(self.definition.owner)
            function = self.value(node.func)
            if isinstance(function, _Def) and isinstance(function.node, ast.ClassDef):
                for name in self._special(function):
                    self._reached(self._member(function, name))
                return _Instance(function)
            if isinstance(function, _Instance):
                self._reached(self._member(function.cls, "__call__"))
                return None
            if isinstance(function, _Def):
                return self.reacher.returns(function)
        return None

    def _attribute(self, base: _Def, name: str, *, instance: bool) -> _Value | None:
        if base.node is None:  # a module's name, or its submodule
            found, missing = self.reacher.lookup(base.module, name)
            if missing == "external":
                return _EXTERNAL
            if missing:
                self._unknown(None, f"{base.module.name}.{name}", missing)
            return self._reached(found)
        found = self._member(base, name)
        self._reached(found)
        if not found:
            return None
        member = found[0].node
        if isinstance(member, _FUNCTIONS) and instance:
            if {_name(d) for d in member.decorator_list} & _PROPERTIES:
                return self.reacher.returns(found[0])
            return found[0]  # a bound method: calling it gives its return
        if isinstance(member, ast.AnnAssign) and instance:  # read where the class is
            return _Scanner(self.reacher, found[0]).annotation(member.annotation)
        return found[0]

    def _special(self, cls: _Def, depth: int = 0) -> set[str]:
        """The special methods (`__init__`, `__missing__`...) of a class and its bases."""
        if not isinstance(cls.node, ast.ClassDef) or depth > 20:
            return set()
        found = {
            s.name
            for s in cls.node.body
            if isinstance(s, _FUNCTIONS) and s.name.startswith("__") and s.name.endswith("__")
        }
        for base in cls.node.bases:
            parent = _Scanner(self.reacher, cls)._static(base)
            if isinstance(parent, _Def):
                found |= self._special(parent, depth + 1)
        return found

    def _member(self, cls: _Def, name: str, depth: int = 0) -> list[_Def]:
        """A class's definitions of `name`, in its body, else in its bases', in order."""
        node = cls.node
        if not isinstance(node, ast.ClassDef) or depth > 20:
            return []
        found = [
            _Def(cls.module, s, f"{cls.qual}.{name}", cls)
            for s in node.body
            if (isinstance(s, _FUNCTIONS | ast.ClassDef) and s.name == name)
            or (isinstance(s, ast.AnnAssign) and _name(s.target) == name)
            or (isinstance(s, ast.Assign) and name in {_name(t) for t in s.targets})
        ]
        if found:
            return found
        for base in node.bases:
            scanner = _Scanner(self.reacher, cls)
            parent = scanner._static(base)
            if isinstance(parent, _Def) and (inherited := self._member(parent, name, depth + 1)):
                return inherited
        return []

    def _super(self, cls: _Def) -> _Value | None:
        """What `super()` is in a method of `cls`: its first base of the project's own."""
        if not isinstance(cls.node, ast.ClassDef):
            return None
        for base in cls.node.bases:
            parent = _Scanner(self.reacher, cls)._static(base)
            if isinstance(parent, _Def) and isinstance(parent.node, ast.ClassDef):
                return _Instance(parent)
        return _EXTERNAL

    def _reached(self, found: list[_Def]) -> _Value | None:
        self.scan.edges += found
        return found[0] if found else None

    def _unknown(self, node: ast.AST | None, text: str, why: str) -> None:
        line = getattr(node, "lineno", 0) or getattr(self.definition.node, "lineno", 0)
        self.scan.unknown.append((self.module.path, line, text, why))


def _name(node: ast.expr) -> str:
    """The last name of a name or attribute (`functools.cached_property`: `cached_property`)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _text(node: ast.expr) -> str:
    """A short text of an expression, for a listing."""
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
