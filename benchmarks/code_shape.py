"""The shape of a checkout's code: long modules, long functions and import cycles.

What a newcomer meets first in ``catansim/``::

    python benchmarks/code_shape.py            # this checkout
    python benchmarks/code_shape.py ../main    # another one

- modules over ``--module-lines`` (800) lines, with their length;
- functions and methods over ``--function-lines`` (80) lines (``def`` to its last line,
  docstring included; a nested function counts on its own and inside its parent);
- import cycles, from the import graph grimp builds (the library under import-linter):
  groups of modules that import each other in a ring (strongly connected components of
  the module graph, imports inside functions included), and rings among the siblings of
  a package, each child package taken whole (what import-linter's ``acyclic_siblings``
  contract forbids).

Counts lines of text as ``wc -l`` does; the cycles are read from the code, not run.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import grimp

PACKAGE = "catansim"


def long_modules(root: Path, limit: int) -> list[tuple[str, int]]:
    """(path, lines) of the modules under ``root/catansim`` longer than ``limit``."""
    out = []
    for path in sorted((root / PACKAGE).rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > limit:
            out.append((path.relative_to(root).as_posix(), n))
    return out


def long_functions(root: Path, limit: int) -> list[tuple[str, int]]:
    """(path:name, lines) of the functions and methods longer than ``limit``."""
    out = []
    for path in sorted((root / PACKAGE).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    out.append((f"{path.relative_to(root).as_posix()}:{node.name}", n))
    return out


def _rings(nodes, edges) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    rings = []
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                ring = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    ring.append(member)
                    if member == node:
                        break
                if len(ring) > 1:
                    rings.append(sorted(ring))
    return rings


def import_cycles(root: Path) -> tuple[list[list[str]], list[list[str]]]:
    """(module rings, sibling rings) of the catansim under ``root``."""
    sys.path.insert(0, str(root))
    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    modules = graph.modules
    edges = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    module_rings = _rings(modules, edges)
    sibling_rings = []
    for parent in sorted(modules):
        children = graph.find_children(parent)
        if len(children) < 2:
            continue

        def sibling(module, parent=parent, children=children):
            # the child of ``parent`` that ``module`` is or lies in, or None
            for child in children:
                if module == child or module.startswith(child + "."):
                    return child
            return None

        sib_edges: dict[str, set[str]] = {}
        for m in modules:
            a = sibling(m)
            if a is None:
                continue
            for b in map(sibling, edges[m]):
                if b is not None and b != a:
                    sib_edges.setdefault(a, set()).add(b)
        sibling_rings += _rings(children, sib_edges)
    return module_rings, sibling_rings


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", nargs="?", default=str(Path(__file__).resolve().parents[1]),
                    help="a catansim checkout (default: this one)")
    ap.add_argument("--module-lines", type=int, default=800)
    ap.add_argument("--function-lines", type=int, default=80)
    args = ap.parse_args(argv)
    root = Path(args.checkout).resolve()
    if not (root / PACKAGE / "__init__.py").is_file():
        ap.error(f"{args.checkout}: not a catansim checkout (no catansim/__init__.py)")
    modules = long_modules(root, args.module_lines)
    functions = long_functions(root, args.function_lines)
    module_rings, sibling_rings = import_cycles(root)
    print(f"{root}")
    print(f"\nmodules over {args.module_lines} lines: {len(modules)}")
    for name, n in sorted(modules, key=lambda x: -x[1]):
        print(f"  {n:5d}  {name}")
    print(f"\nfunctions over {args.function_lines} lines: {len(functions)}")
    for name, n in sorted(functions, key=lambda x: -x[1]):
        print(f"  {n:5d}  {name}")
    print(f"\nimport cycles among modules: {len(module_rings)}")
    for ring in module_rings:
        print("  " + " <-> ".join(ring))
    print(f"import cycles among a package's children: {len(sibling_rings)}")
    for ring in sibling_rings:
        print("  " + " <-> ".join(ring))


if __name__ == "__main__":
    main()
