"""The layers of ARCHITECTURE.md, checked from the sources: every import points down, no circles, and every module
is named on the page.

Each module's imports are read with `ast` (top-level and inside functions alike; imports under
`if TYPE_CHECKING:` are left out, as they never run). A module may import its own layer's modules and
any lower layer's; `calibration.store` (the file format) may be read from anywhere; the simulated arm
driver is the one arm module that may import `sim`.

The page's module list has a bullet per package directory (`- **robot/arm/drivers/**: ...`, up to the next
bullet); a module is named when its file's name, without `.py`, stands in backticks in its directory's bullet.
A package's `__init__.py` is its directory's bullet itself.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "sim", "vision", "robot", "calibration")

# (module prefix, layer): the longest matching prefix wins.
LAYERS = (
    ("engine", 1),
    ("sim", 1),
    ("vision", 2),
    ("robot.arm", 3),
    ("calibration", 4),
    ("calibration.store", 0),  # imports nothing of the project, so every layer may read a calibration
    ("robot.game", 5),
    ("robot.view", 5),
    ("robot.cli", 6),
    ("robot", 6),
)
ALLOWED_UPWARD = {("robot.arm.drivers.sim", "sim")}  # the one place the arm layer meets the simulation
ARCHITECTURE_PAGE = ROOT / "ARCHITECTURE.md"
MODULE_LINE_LIMIT = 400
LONG_MODULE_REASON = "Longer than 400 lines because"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "firmware" not in path.parts
    }


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `module` imports (a `from package import name` counts `package.name` if it is one)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking_block(child):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = module.split(".")[: -child.level] if path.name != "__init__.py" else module.split(".")
                    package = package[: len(package) - child.level + 1] if path.name == "__init__.py" else package
                    base = ".".join(package + ([child.module] if child.module else []))
                for alias in child.names:
                    candidate = f"{base}.{alias.name}"
                    found.add(candidate if candidate in known else base)
            visit(child)

    visit(ast.parse(path.read_text(), filename=str(path)))
    return {name for name in found if name.split(".")[0] in PACKAGES}


def _layer(module: str) -> int:
    matches = [(len(prefix), layer) for prefix, layer in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return max(matches)[1]


def _import_graph() -> dict[str, set[str]]:
    sources = _sources()
    known = set(sources)
    return {module: _imported_modules(module, path, known) & known for module, path in sources.items()}


def test_every_import_points_down() -> None:
    upward = []
    for module, imports in _import_graph().items():
        for target in imports:
            same_package = target.split(".")[0] == module.split(".")[0] and _layer(target) == _layer(module)
            if same_package or _layer(target) < _layer(module) or _layer(target) == 0:
                continue
            if any(module.startswith(low) and target.startswith(high) for low, high in ALLOWED_UPWARD):
                continue
            upward.append(f"{module} (layer {_layer(module)}) imports {target} (layer {_layer(target)})")
    assert not upward, "imports that point up:\n" + "\n".join(sorted(upward))


def test_no_import_circles() -> None:
    graph = _import_graph()
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if target == module or target.startswith(module + "."):
                continue  # a package importing its own submodules is not a circle
            if state.get(target) == 1:
                circles.append(path[path.index(target) :] + [target])
            elif target not in state:
                walk(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    # A submodule importing its own package's __init__ (for a shared name) closes no real circle.
    real = [
        c
        for c in circles
        if not any(b.startswith(a + ".") or a.startswith(b + ".") for a, b in zip(c, c[1:], strict=False))
    ]
    assert not real, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in real)


@pytest.mark.parametrize("module", sorted(_sources()))
def test_modules_stay_short_or_say_why(module: str) -> None:
    path = _sources()[module]
    lines = len(path.read_text().splitlines())
    docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
    assert lines <= MODULE_LINE_LIMIT or LONG_MODULE_REASON in docstring, (
        f"{path.relative_to(ROOT)} has {lines} lines: split it, or say in its docstring '{LONG_MODULE_REASON} ...'"
    )


def _named_on_page(text: str) -> dict[str, set[str]]:
    """Each package directory's bullet on the architecture page (`engine/`, `robot/arm/drivers/`) and the names in
    backticks in it."""
    bullets = re.finditer(r"^- \*\*([\w/]+/)\*\*:(.*?)(?=^- |^#|\Z)", text, re.S | re.M)
    return {bullet[1]: set(re.findall(r"`([^`]+)`", bullet[2])) for bullet in bullets}


def _modules_missing_from(text: str) -> list[str]:
    """A line for each module (`__init__.py` aside) that the page `text` does not name in its directory's bullet."""
    named = _named_on_page(text)
    missing = []
    for path in sorted(_sources().values()):
        if path.name == "__init__.py":
            continue
        package = path.parent.relative_to(ROOT).as_posix() + "/"
        if package not in named:
            missing.append(f"{path.relative_to(ROOT)}: the page has no bullet '- **{package}**: ...'")
        elif path.stem not in named[package]:
            missing.append(f"{path.relative_to(ROOT)}: name `{path.stem}` in the '- **{package}**' bullet")
    return missing


def test_every_module_is_named_on_the_architecture_page() -> None:
    missing = _modules_missing_from(ARCHITECTURE_PAGE.read_text())
    assert not missing, "modules ARCHITECTURE.md does not name:\n" + "\n".join(missing)


def test_a_module_left_off_the_page_is_named_as_missing() -> None:
    page = ARCHITECTURE_PAGE.read_text()
    assert "`pairing`" in page and "- **robot/arm/drivers/**:" in page
    without = page.replace("`pairing`", "pairing").replace("- **robot/arm/drivers/**:", "- drivers:")
    missing = _modules_missing_from(without)
    assert "engine/pairing.py: name `pairing` in the '- **engine/**' bullet" in missing
    assert "robot/arm/drivers/gcode.py: the page has no bullet '- **robot/arm/drivers/**: ...'" in missing


def test_the_architecture_page_names_no_module_that_is_gone() -> None:
    """A lowercase name in backticks in a package's bullet is one of its modules or subpackages."""
    gone = []
    for package, names in sorted(_named_on_page(ARCHITECTURE_PAGE.read_text()).items()):
        directory = ROOT / package
        present = {child.stem for child in directory.iterdir()} if directory.is_dir() else set()
        gone += [
            f"`{name}` in the '- **{package}**' bullet"
            for name in sorted(names)
            if re.fullmatch(r"[a-z][a-z0-9_]*", name) and name not in present
        ]
        if not directory.is_dir():
            gone.append(f"the '- **{package}**' bullet: no such directory")
    assert not gone, "ARCHITECTURE.md names what is not there:\n" + "\n".join(gone)
