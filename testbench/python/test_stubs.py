"""The type stubs match the native module: every public name of ipusim._ipusim is in
_ipusim.pyi and every name there is in the module; the same for the members of each
class; the package's own helpers are in __init__.pyi; everything has a docstring."""

import ast
import inspect
import pathlib

import ipusim
from ipusim import _ipusim

PACKAGE = pathlib.Path(ipusim.__file__).parent
STUB_ONLY = {"_Path", "_Buffer", "_DType", "_Count", "_Range", "_Fill", "_Drain", "_TensorDType", "_Tiles"}  # type aliases of the stubs


def stub_tree(name):
    return ast.parse((PACKAGE / name).read_text())


def top_level(tree):
    names, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            classes[node.name] = members
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names - STUB_ONLY, classes


def public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def test_module_names_equal_stub_names():
    names, _ = top_level(stub_tree("_ipusim.pyi"))
    module = public(_ipusim)
    assert module - names == set(), "in the module, not in _ipusim.pyi"
    assert names - module == set(), "in _ipusim.pyi, not in the module"


def test_class_members_equal_stub_members():
    _, classes = top_level(stub_tree("_ipusim.pyi"))
    for name, members in classes.items():
        cls = getattr(_ipusim, name)
        if issubclass(cls, BaseException):
            continue  # exception attributes: test_errors.py checks them on raised exceptions
        have = public(cls)
        if name in ("RunState", "DType"):  # pybind11 enums: members and the enum machinery
            have &= set(cls.__members__) | {"name", "value"}
        assert have - members == set(), f"{name}: in the module, not in the stub"
        assert {m for m in members if not m.startswith("_")} - have == set(), f"{name}: in the stub, not the module"
        for special in ("__enter__", "__exit__", "__contains__", "__hash__"):
            if special in members:
                assert hasattr(cls, special), f"{name}.{special}"


def test_package_helpers_are_stubbed_and_exported():
    names, _ = top_level(stub_tree("__init__.pyi"))
    helpers = {"console_printer", "superstep_columns"}
    assert helpers <= names
    assert set(ipusim.__all__) == public(_ipusim) | helpers
    for h in helpers:
        assert inspect.getdoc(getattr(ipusim, h))


def test_everything_has_a_docstring():
    """Every class and function of the module, and every method and attribute of its
    classes, says what it is (help() and IDEs show it)."""
    undocumented = [n for n in public(_ipusim)
                    if (inspect.isclass(getattr(_ipusim, n)) or callable(getattr(_ipusim, n)))
                    and not (inspect.getdoc(getattr(_ipusim, n)) or "").strip()]
    for cls in (getattr(_ipusim, n) for n in sorted(public(_ipusim))):
        if not inspect.isclass(cls) or issubclass(cls, BaseException) or cls in (_ipusim.RunState, _ipusim.DType):
            continue  # exception attributes are set on each raise; an enum's members are values
        for member in public(cls):
            if not (inspect.getdoc(getattr(cls, member)) or "").strip():
                undocumented.append(f"{cls.__name__}.{member}")
    assert undocumented == []
