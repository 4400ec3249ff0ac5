"""dtcli's layout: no import circle between its modules, nor between its packages.

The graph is read from the source (AST), not by importing: an edge is an `import` or
`from ... import` anywhere in a module, inside functions too (that is how the CLI keeps
numba out of `dtree --help`: an import it delays still ties the modules). A package is
dtcli's first level (`dtcli.crossval`, `dtcli.engine`, ...; a top-level module such as
`dtcli.presets` is its own), and one module of a package importing another of the same
is no edge between packages.

One import runs against the layers on purpose, and is allowed by name (UP_CALL): the
engine's growth asks the compile manager before it compiles (`warm.before_compiling`),
and the compile manager compiles by running growth.
"""
import ast
from pathlib import Path

import dtcli

ROOT = Path(dtcli.__file__).parent

# (importer, imported): the one import allowed to close a circle, and why.
UP_CALL = ("dtcli.engine.builder", "dtcli.engine.warm")


def module_names(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package's __init__) of every module under `root`."""
    names = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        names[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return names


def top_level_imports(root: Path, inside_functions: bool = False) -> dict[str, set[str]]:
    """Module -> the modules under `root` it imports at its top level (and, with
    `inside_functions`, anywhere in it)."""
    names = module_names(root)

    def known(name: str) -> str | None:
        while name and name not in names:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, (path, is_package) in names.items():
        package = module if is_package else module.rpartition(".")[0]
        targets = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if inside_functions else tree.body:
            if isinstance(node, ast.Import):
                targets.update(known(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.add(full if full in names else known(base))
        graph[module] = {t for t in targets if t and t != module}
    return graph


def packages_of(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between first-level packages (and top-level modules)."""
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    merged: dict[str, set[str]] = {}
    for module, targets in graph.items():
        merged.setdefault(package(module), set()).update(
            package(t) for t in targets if package(t) != package(module))
    return merged


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_circles_finds_a_circle_and_nothing_else():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": set(), "f": {"d"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_absolute_and_relative_imports(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("from .. import a\n\ndef later():\n    import pkg.c\n")
    (package / "c.py").write_text("import pkg.a\n")
    graph = top_level_imports(package)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.a"}
    assert circles(graph) == [["pkg.a", "pkg.sub.b"]]
    assert circles(packages_of(graph)) == [["pkg.a", "pkg.sub"]]


def dtcli_graph() -> dict[str, set[str]]:
    """dtcli's modules and what each imports anywhere in it, less the allowed up-call."""
    graph = top_level_imports(ROOT, inside_functions=True)
    importer, imported = UP_CALL
    assert imported in graph[importer], f"{importer} no longer imports {imported}: drop it"
    graph[importer] = graph[importer] - {imported}
    return graph


def test_imports_inside_functions_close_circles(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("import pkg.b\n")
    (package / "b.py").write_text("def later():\n    from pkg import a\n")
    assert circles(top_level_imports(package)) == []
    assert circles(top_level_imports(package, inside_functions=True)) == [["pkg.a", "pkg.b"]]


def test_no_import_circle_between_dtcli_modules():
    graph = dtcli_graph()
    assert "dtcli.crossval.runner" in graph
    assert circles(graph) == []


def test_no_import_circle_between_dtcli_packages():
    assert circles(packages_of(dtcli_graph())) == []
