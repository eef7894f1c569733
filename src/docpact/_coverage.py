# SPDX-License-Identifier: MIT
"""Example coverage: which public objects of a package no executed example exercises.

A package's public objects are the names of its `__all__`. An object is exercised by an
example that a runner the project declares (`[tool.docpact] examples`) runs: a doctest
(`>>>`) in its own docstring, or a Python example whose code refers to it (a name or an
attribute in the parsed code, not a mention in a comment or a string, and not an import that
nothing uses), on a docs page or, for pytest-examples and markdown-exec, in a docstring. Each
runner's examples are found by its own rules: `docpact.sybil` parses the pages as it runs
them, so an example under an unconditional `<!-- skip -->` does not count and one whose skip
has a condition does; pytest-examples' and markdown-exec's rules are in
`docpact._readers.examples`. A Python fence in a docstring that no declared runner runs is
reported, never silently ignored.

Everything is read statically: griffe for the package, `ast` for the example code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from griffe import GriffeLoader

from docpact._kinds.coverage import COVERAGE_CODES, FENCES, UNCOVERED
from docpact._kinds.objects import OBJECT
from docpact._model.errors import DocpactError
from docpact._model.findings import Finding, relative
from docpact._readers.examples import markdown_exec_runs, markdown_exec_session, pytest_examples
from docpact._readers.files import read_error, read_text
from docpact._readers.markdown.fences import PYTHON, Fence, fenced_blocks, python_code
from docpact._readers.python.quiet import griffe_quiet
from docpact._readers.python.sources import (
    PARSE_ERRORS,
    filepath,
    is_function,
    lookup,
    missing_object,
    search_paths,
    special_source,
)

if TYPE_CHECKING:
    from pathlib import Path

    from griffe import Docstring, Module

    from docpact._model.config import Config

__all__ = ["COVERAGE_CODES", "Coverage", "check_coverage"]

# What opens a docstring's first line: its indent, a string prefix and the quotes.
_OPENING_QUOTES = re.compile(r"""^\s*[rRuU]?(?:\"\"\"|\'\'\'|\"|\')""")


@dataclass(frozen=True)
class Coverage:
    """The result of `check_coverage`.

    Attributes:
        findings: One finding per public object without an executed example, and per
            Python fence in a docstring.
        covered: How many public objects an executed example exercises.
        total: How many public objects the packages export.
    """

    findings: list[Finding]
    covered: int
    total: int

    def reported(self, select: frozenset[str] | None, ignore: frozenset[str]) -> list[Finding]:
        """The findings that `--select` and `--ignore` keep; a DP001 is always kept.

        Args:
            select: The codes among `COVERAGE_CODES` to report; `None` for all of them.
            ignore: The codes not to report, applied after `select`.

        Returns:
            The findings kept, in order.
        """
        return [
            finding
            for finding in self.findings
            if finding.code not in COVERAGE_CODES
            or ((select is None or finding.code in select) and finding.code not in ignore)
        ]

    @staticmethod
    def fails(findings: list[Finding]) -> bool:
        """Whether reported findings fail the command whatever the share: a DP011 or a DP001.

        Args:
            findings: The findings reported.

        Returns:
            True where a python fence no runner runs, or a package that cannot be
            loaded, is among them.
        """
        return any(finding.code in {FENCES.code, OBJECT.code} for finding in findings)

    @property
    def percent(self) -> float:
        """The share of public objects covered, in percent (100 for no public object)."""
        return 100.0 if not self.total else 100.0 * self.covered / self.total


def check_coverage(config: Config, packages: list[str]) -> Coverage:
    """Find the public objects of some packages that no executed example exercises.

    Args:
        config: The project's configuration: its root, search paths, docs and the runners
            of its examples.
        packages: The packages (or subpackages, `docpact.sybil`) whose `__all__` to cover.

    Returns:
        The findings and the counts.

    Raises:
        DocpactError: When a package cannot be found or has no `__all__`, or a docs page
            cannot be read or parsed.
    """
    loader = GriffeLoader(search_paths=search_paths(config), allow_inspection=False)
    findings: list[Finding] = []
    modules: dict[str, Module] = {}
    for dotted in packages:
        module = _load(loader, dotted, config)
        if isinstance(module, Finding):
            findings.append(module)
        else:
            modules[dotted] = module
            findings += _unparsed(module, dotted, config)
    runners = config.examples
    used = _page_references(config) if "sybil" in runners else set()
    used |= _runner_references(config, list(modules.values()))
    covered = total = 0
    for dotted, module in modules.items():
        for name in [str(name) for name in module.exports or []]:
            total += 1
            obj = lookup(module, [name])  # None for a name that griffe cannot follow
            paths = {f"{dotted}.{name}"} if obj is None else {f"{dotted}.{name}", obj.path}
            doctested = "doctest" in runners and obj is not None and _has_doctest(obj)
            if doctested or paths & used:
                covered += 1
                continue
            where = obj if obj is not None else module
            path = relative(filepath(where), config.root)
            message = f"{dotted}.{name} has no executed example: {_gap(runners)}"
            findings.append(UNCOVERED.finding(path, where.lineno or 1, message))
        findings += _docstring_fences(module, config)
    return Coverage(sorted(set(findings)), covered, total)


# What each runner would have run, said of an object that has no example: in this order.
_NO_EXAMPLE = {
    "doctest": "no doctest in its docstring",
    "sybil": "no docs example that runs refers to it",
    "pytest-examples": "no example that pytest-examples collects refers to it",
    "markdown-exec": 'no fence that markdown-exec runs (exec="on") refers to it',
}


def _gap(runners: tuple[str, ...]) -> str:
    """Why an object has no example: what none of the declared runners runs."""
    parts = [said for runner, said in _NO_EXAMPLE.items() if runner in runners]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])}, and {parts[-1]}"


def _load(loader: GriffeLoader, dotted: str, config: Config) -> Module | Finding:
    """The package, or the DP001 finding of its unreadable source, as `docpact check` gives it.

    Raises:
        DocpactError: When there is no such package, or it has no `__all__`.
    """
    try:
        if special := special_source(dotted.partition(".")[0], config):
            raise OSError(special)
        with griffe_quiet():
            module = loader.load(dotted, try_relative_path=False)
    except PARSE_ERRORS as error:
        path, line, message = missing_object(dotted, 1, package=None, config=config, error=error)
        return OBJECT.finding(path, line, message)
    except (ImportError, KeyError) as error:
        msg = f"{config.pyproject.name}: error: coverage cannot load package {dotted}: {error}"
        raise DocpactError(msg) from None
    if module.exports is None:
        msg = f"{config.pyproject.name}: error: package {dotted} has no __all__ to cover"
        raise DocpactError(msg)
    return module


def _unparsed(package: Module, dotted: str, config: Config) -> list[Finding]:
    """A DP001 finding for each module of a package that griffe skipped: it does not parse.

    griffe loads a package whose submodule has a syntax error without it, so the names that
    module exports would be reported as uncovered, not as unreadable.
    """
    if not package.is_package:
        return []
    loaded = set()
    pending = [package]
    while pending:
        module = pending.pop()
        loaded.add(filepath(module))
        pending += [m for m in module.modules.values() if not m.is_alias]
    findings = []
    for path in sorted(filepath(package).parent.rglob("*.py")):
        if path in loaded or not all(
            part.isidentifier() for part in path.with_suffix("").parts[-1:]
        ):
            continue
        try:
            ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError) as error:
            parts = path.relative_to(filepath(package).parent).with_suffix("").parts
            name = ".".join((dotted, *(part for part in parts if part != "__init__")))
            place = missing_object(name, 1, package=None, config=config, error=error)
            findings.append(OBJECT.finding(*place))
    return findings


def _has_doctest(obj: object) -> bool:
    """Whether a doctest runs in a module's, class's (its methods' too) or function's docstring.

    Doctest runs no attribute's docstring, but a property's, which is its getter's.
    """
    kind = obj.kind.value  # type: ignore[attr-defined]
    if kind not in {"module", "class", "function"} and not is_function(obj):
        return False
    docstring = obj.docstring  # type: ignore[attr-defined]
    if docstring is not None and any(
        line.lstrip().startswith(">>> ") for line in docstring.value.splitlines()
    ):
        return True
    members = obj.members.values() if kind == "class" else ()  # type: ignore[attr-defined]
    return any(not m.is_alias and is_function(m) and _has_doctest(m) for m in members)


def _docstring_fences(module: Module, config: Config) -> list[Finding]:
    """A DP011 finding for each Python fence in a docstring of the module that nothing runs."""
    runners = config.examples
    collected: dict[Path, set[int]] = {}  # the fences' lines pytest-examples collects, by file
    findings = []
    for obj in _walk(module):
        docstring = obj.docstring  # type: ignore[attr-defined]
        if docstring is None:
            continue
        for fence in fenced_blocks(docstring.value):
            if fence.language not in PYTHON:
                continue
            line = _line_in_file(obj, docstring, fence.line - 1)
            file = filepath(obj)
            if "pytest-examples" in runners and file not in collected:
                found = pytest_examples(read_text(file), python_file=file.suffix == ".py")
                collected[file] = {example.line for example in found}
            reasons = _not_run(fence, obj, runners, line in collected.get(file, ()))
            if not reasons:
                continue
            hint = (
                "write it as a doctest, or fence it as text"
                if "doctest" in runners
                else "fence it as text, or declare the runner that runs it in "
                "[tool.docpact] examples"
            )
            message = (
                f"a python fence in the docstring of {obj.path} is not run as code: "  # type: ignore[attr-defined]
                f"{'; '.join(reasons)}: {hint}"
            )
            findings.append(FENCES.finding(relative(file, config.root), line, message))
    return findings


def _not_run(fence: Fence, obj: object, runners: tuple[str, ...], collected: bool) -> list[str]:
    """Why each declared runner does not run a docstring's fence; none where one runs it.

    ``collected`` says whether pytest-examples collects the fence from its file.
    """
    doctested = obj.kind.value in {"module", "class", "function"}  # type: ignore[attr-defined]
    reasons = {
        "sybil": "docpact.sybil runs the docs pages only",
        "doctest": (
            "doctest runs a fence whose code opens with `>>>` only"
            if doctested
            else "doctest runs no attribute's docstring"
        ),
        "pytest-examples": (
            'pytest-examples collects ``` fences in """ docstrings only, closed at the '
            "opening's indent"
        ),
        "markdown-exec": 'markdown-exec runs a fence marked exec="on" only',
    }
    runs = {
        "sybil": False,
        "doctest": doctested
        and (fence.language == "pycon" or fence.source.lstrip().startswith(">>>"))
        and bool(python_code(fence.source, fence.language)),
        "pytest-examples": collected,
        "markdown-exec": markdown_exec_runs(fence),
    }
    if any(runs[runner] for runner in runners):
        return []
    return [reasons[runner] for runner in runners]


def _line_in_file(obj: object, docstring: Docstring, offset: int) -> int:
    """The line in the object's file of the docstring's line `offset`.

    griffe cleans a docstring, dropping the blank lines it opens with (a docstring that starts
    on the line after its quotes); the shift is the same for all its lines, so the first of
    the docstring's lines in the file that holds the cleaned first line gives it (none if the
    file spells that line otherwise, with an escape). A docstring read from a stub beside the
    file may lie past the file's end: the line is then the file's last.
    """
    lines = read_text(filepath(obj)).splitlines()
    start = docstring.lineno  # type: ignore[operator]
    first = docstring.value.partition("\n")[0].strip()
    spans = lines[start - 1 : docstring.endlineno]
    if spans:
        spans[0] = _OPENING_QUOTES.sub("", spans[0])
    shift = next((n for n, text in enumerate(spans) if text.strip() == first), 0)
    return max(1, min(start + shift + offset, len(lines)))


def _walk(obj: object) -> list[object]:
    """An object and every member it defines itself (aliases, that is re-exports, left out)."""
    found = [obj]
    for member in obj.members.values():  # type: ignore[attr-defined]
        if not member.is_alias:
            found += _walk(member)
    return found


def _pages(config: Config) -> list[Path]:
    """The docs pages, `docs/**/*.md`, each a file that can be read.

    Raises:
        DocpactError: When a page is no regular file: a FIFO would block for ever.
    """
    docs = config.root / "docs"
    pages = sorted(docs.rglob("*.md")) if docs.is_dir() else []
    for page in pages:
        if reason := read_error(page):
            where = relative(page, config.root)
            msg = f"{where}:1: error: {where} {reason}"
            raise DocpactError(msg)
    return pages


def _runner_references(config: Config, modules: list[Module]) -> set[str]:
    """The dotted names that the examples pytest-examples and markdown-exec run use.

    pytest-examples reads the docs pages and the covered packages' files, as a test calling
    `find_examples("docs", "src/pkg")` does, and runs each example alone; markdown-exec runs
    the pages' and the docstrings' fences marked `exec`, those of one `session` sharing
    their names.
    """
    runners = config.examples
    if "pytest-examples" not in runners and "markdown-exec" not in runners:
        return set()
    pages = _pages(config)
    used: set[str] = set()
    if "pytest-examples" in runners:
        files = [(page, False) for page in pages]
        for module in modules:
            path = filepath(module)
            tree = sorted(path.parent.rglob("*.py")) if path.name == "__init__.py" else [path]
            files += [(file, True) for file in tree if not read_error(file)]
        for file, python_file in files:
            for fence in pytest_examples(read_text(file), python_file=python_file):
                used |= _references(python_code(fence.source, fence.language), {})
    if "markdown-exec" in runners:
        texts = [read_text(page) for page in pages]
        for module in modules:
            texts += [
                obj.docstring.value  # type: ignore[attr-defined]
                for obj in _walk(module)
                if obj.docstring is not None  # type: ignore[attr-defined]
            ]
        sessions: dict[str, dict[str, str]] = {}
        for text in texts:
            for fence in fenced_blocks(text):
                if markdown_exec_runs(fence):
                    session = markdown_exec_session(fence)
                    bound = sessions.setdefault(session, {}) if session else {}
                    used |= _references(python_code(fence.source, fence.language), bound)
    return used


def _page_references(config: Config) -> set[str]:
    """The dotted names that the docs pages' examples use, where some session runs them.

    The pages are read by `docpact.sybil.docs_sybil`, the parser that runs them, so what
    counts as an example, and what a skip skips, is what the tests do. A name counts by what
    the page imported it as: `from pkg import f as g; g()` uses `pkg.f`; `import pkg;
    pkg.f()` too. Names are followed from one example to the next on a page, which share a
    namespace until `<!-- clear-namespace -->`.
    """
    try:
        from sybil.parsers.abstract.lexers import LexingException

        from docpact.sybil import docs_sybil
        from docpact.sybil._skip import ConditionsClearNamespaceParser
    except ImportError:
        msg = "docpact coverage reads the docs pages with Sybil: pip install 'docpact[sybil]'"
        raise DocpactError(msg) from None
    pages = _pages(config)  # before Sybil reads them
    if not pages:
        return set()
    sybil = docs_sybil(root=config.root)
    used: set[str] = set()
    for page in pages:
        bound: dict[str, str] = {}
        # False under an unconditional skip: a `skip: next` waiting, a `skip: start` in force.
        next_runs = block_runs = True
        try:
            examples = list(sybil.parse(page))
        except ValueError as error:  # a malformed directive, or two examples that overlap
            raise DocpactError(_refused(str(error), page, config.root)) from None
        except LexingException as error:  # an opening with no end: a comment never closed
            opening = re.search(r"of ('.*?'|\".*?\"), starting at line (\d+)", str(error))
            line, what = (
                (opening[2], opening[1].replace("\\n", "")) if opening else ("1", "a block")
            )
            where = relative(page, config.root)
            msg = f"{where}:{line}: error: {where} opens {what} that nothing closes"
            raise DocpactError(msg) from None
        for example in examples:
            parsed = example.region.parsed
            evaluator = example.region.evaluator
            if type(evaluator).__name__ == "Skipper":
                action, reason = parsed  # ReasonedSkipParser: next and start have a reason
                if action == "next":
                    next_runs = reason.startswith("if")
                elif action == "start":
                    block_runs = reason.startswith("if")
                else:
                    block_runs = True
                continue
            if evaluator is ConditionsClearNamespaceParser.evaluate:
                bound = {}
                continue
            runs = block_runs and next_runs
            next_runs = True
            code = getattr(parsed, "source", parsed)
            if runs and isinstance(code, str):
                used |= _references(code, bound)
    return used


# Sybil's refusal of two regions that overlap: each region's repr, then where it lies.
_OVERLAP = re.compile(
    r"^<Region .*?evaluator=(?P<first>.*?)>.* from line (?P<a>\d+), column \d+ "
    r"to line (?P<b>\d+), column (?P<bc>\d+)"
    r".* overlaps <Region .*?evaluator=(?P<second>.*?)>.* from line (?P<c>\d+), column \d+ "
    r"to line (?P<d>\d+), column (?P<dc>\d+)",
    re.DOTALL,
)


# What each region of Sybil's overlap error is, by the name of its evaluator.
_REGIONS = {
    "ConfigDefaultsParser": "config-defaults block",
    "Skipper": "skip directive",
    "PythonEvaluator": "python example",
}


def _region(evaluator: str) -> str:
    return next((what for name, what in _REGIONS.items() if name in evaluator), "example")


def _last(line: str, column: str) -> int:
    """A region's last line: it ends before its end's column, so column 1 is the line before."""
    return int(line) - (column == "1")


def _refused(message: str, page: Path, root: Path) -> str:
    """One located line for what Sybil, or a docpact parser inside it, refused on a page.

    The parsers name the page by the path Sybil gives them; Sybil's own overlap error is
    the two regions' reprs, over several lines.
    """
    where = relative(page, root)
    if message.startswith(f"{page}:"):
        return where + message[len(str(page)) :]
    if overlap := _OVERLAP.match(message):
        first, second = _region(overlap["first"]), _region(overlap["second"])
        return (
            f"{where}:{overlap['c']}: error: the {second} of lines "
            f"{overlap['c']}-{_last(overlap['d'], overlap['dc'])} overlaps the {first} of lines "
            f"{overlap['a']}-{_last(overlap['b'], overlap['bc'])}: Sybil runs neither; "
            "close one before the other opens"
        )
    return f"{where}:1: error: {' '.join(message.split())}"


def _references(code: str, bound: dict[str, str]) -> set[str]:
    """The dotted names an example's code uses, by what they were imported as.

    Updates ``bound`` with the example's imports. A comment, a string, or an import that
    nothing uses is not a use.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                bound[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):  # a name the example defines itself hides the import
        defined = node.name if isinstance(node, ast.FunctionDef | ast.ClassDef) else None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined = node.id
        bound.pop(defined, None)  # type: ignore[arg-type]
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in bound:
            used.add(bound[node.id])
        elif isinstance(node, ast.Attribute):
            parts = []
            root: ast.AST = node
            while isinstance(root, ast.Attribute):
                parts.append(root.attr)
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                dotted = bound[root.id]
                for part in reversed(parts):
                    dotted = f"{dotted}.{part}"
                    used.add(dotted)
    return used
