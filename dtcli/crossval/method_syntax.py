"""The --criteria syntax, read in one place: `parse_methods` turns comma-separated
entries into methods (crossval/methods.py says what each spelling means).

`NAME[:P=V[:P=V...]]` with criterion parameters and the entry's own tree options
(entry_options.ENTRY_OPTIONS); `*N` after a tree for a forest of N trees; a
parameter `auto` (or `@METHOD`) makes the entry a `Tuned` method. Unknown names,
parameters, out-of-range values and a parameter given twice in one entry raise
ParameterError, and so do two fixed entries that describe the same tree (e.g. a
parameter given at its default).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from dtcli.errors import ParameterError
from dtcli.params import MAX_TREES
from dtcli.crossval.entry_options import ENTRY_OPTIONS, parse_option
from dtcli.crossval.methods import FDF_COMBINE, Method, Tree, Tuned, method_of

AUTO = "auto"


def parse_methods(entries: Sequence[str]) -> list[Method]:
    """Every method of --criteria values, in the order given."""
    methods: list[Method] = []
    for entry in (part.strip() for value in entries for part in value.split(",")):
        if entry:
            methods.append(_tuned(entry) if is_tuned(entry) else _fixed(entry, methods))
    if not methods:
        raise ParameterError("--criteria: no criterion given")
    tuned = [m for m in methods if isinstance(m, Tuned)]
    return [_with_leader_label(m, tuned) if isinstance(m, Tuned) else m for m in methods]


def as_methods(methods) -> list[Method]:
    """Methods given as objects, --criteria strings or a mix (one string may list several)."""
    if isinstance(methods, (str, Method)):
        methods = [methods]
    found: list[Method] = []
    for method in methods:
        found.extend(parse_methods([method]) if isinstance(method, str) else [method])
        if not isinstance(found[-1], Method):
            raise ParameterError(f"not a method: {method!r} (a Tree, Forest, FDF, Tuned or "
                                 "a --criteria string)")
    return found


def one_method(method) -> Method:
    """The one method of an object or a --criteria string (ParameterError for more)."""
    methods = as_methods(method)
    if len(methods) != 1:
        raise ParameterError(f"expected one method, got {len(methods)} "
                             f"({', '.join(m.label for m in methods) or 'none'})")
    return methods[0]


def refuse_blank(entries: Sequence[str]) -> None:
    """--criteria given but naming nothing (`--criteria ""`, `--criteria ,`) is a mistake,
    not a request for the defaults (which is --criteria left out)."""
    if entries and not any(part.strip() for value in entries for part in value.split(",")):
        raise ParameterError("--criteria: no criterion given (leave the option out for the "
                             "default criteria)")


def fixed_choices(entries: Sequence[str]) -> list:
    """The runner's records (tasks.CriterionChoice) of entries without tuned parameters."""
    methods = parse_methods(entries)
    tuned = [m.label for m in methods if isinstance(m, Tuned)]
    if tuned:
        raise ParameterError(f"--criteria: {tuned[0]!r} is tuned; give fixed parameters here")
    return [m.choice for m in methods]


def command_method(criterion: str, params: dict) -> Method:
    """The method of a command's --criterion and --param options (`gini*100`: a forest);
    with a parameter given as auto, a tuned one."""
    from dtcli.crossval.tasks import CriterionChoice

    if AUTO in params.values():
        label = criterion + "".join(f":{k}={v if v == AUTO else f'{v:g}'}"
                                    for k, v in params.items())
        return Tuned(label, criterion, tuple((k, v) for k, v in params.items() if v != AUTO),
                     tuple(k for k, v in params.items() if v == AUTO))
    name, trees = forest_size(criterion)
    return method_of(CriterionChoice(name, tuple(params.items()), (), trees))


def with_tuned_options(method: Method, names: Sequence[str]) -> Method:
    """`method` with the tree options `names` (given as auto) tuned too."""
    if not names:
        return method
    if isinstance(method, Tree) and method.leaves is None and not method.options:
        label = method.criterion + "".join(f":{k}={v:g}" for k, v in method.params)
        return Tuned(label + "".join(f":{n}=auto" for n in names), method.criterion,
                     method.params, tuple(names))
    if isinstance(method, Tuned) and method.leader is None:
        return Tuned(method.label + "".join(f":{n}=auto" for n in names), method.criterion,
                     method.fixed, method.tuned + tuple(names), None, method.options)
    raise ParameterError(f"tree options given as auto tune a tree; {method.label} is not one")


def is_tuned(entry: str) -> bool:
    return any(value.strip() == AUTO or value.strip().startswith("@")
               for _, _, value in (piece.partition("=") for piece in entry.split(":")[1:]))


def forest_size(entry: str) -> tuple[str, int]:
    """('gini', 100) from 'gini*100'; (entry, 0) without a '*'."""
    entry, star, size = entry.rpartition("*") if "*" in entry else (entry, "", "")
    if not star:
        return entry.strip(), 0
    if not size.strip().isdigit() or not 1 <= int(size) <= MAX_TREES:
        raise ParameterError(f"--criteria: expected NAME*TREES (a forest of TREES trees, 1 to "
                             f"{MAX_TREES}) in {entry + star + size!r}")
    return entry.strip(), int(size)


def _fixed(entry: str, earlier: list[Method]) -> Method:
    from dtcli.crossval.tasks import CriterionChoice, TreeOptions

    entry, trees = forest_size(entry)
    if trees and entry.split(":")[0].strip() in FDF_COMBINE:
        raise ParameterError(f"--criteria: {entry!r} is a forest of its own: it takes "
                             "no *TREES")
    name, *assignments = (piece.strip() for piece in entry.split(":"))
    params, options = [], []
    for assignment in assignments:
        key, sep, value = assignment.partition("=")
        key = key.strip()
        if key in ENTRY_OPTIONS and sep:
            options.append((key, parse_option(entry, key, value)))
            given = [k for k, _ in options]
        else:
            try:
                if not sep or not key:
                    raise ValueError
                params.append((key, float(value)))
            except ValueError:
                raise ParameterError(f"--criteria: expected NAME:PARAM=VALUE in {entry!r}, "
                                     f"got {assignment!r}") from None
            given = [k for k, _ in params]
        if given.count(key) > 1:  # keeping either hides a typo
            raise ParameterError(f"--criteria: {entry!r} gives {key} twice; "
                                 "give each parameter once per criterion")
    choice = CriterionChoice(name, tuple(params), tuple(options), trees)
    resolved = choice.resolved()
    choice.tree_options(TreeOptions()).check()
    for other in (m.choice for m in earlier if not isinstance(m, Tuned)):
        if (other.name == name and other.resolved() == resolved
                and dict(other.options) == dict(choice.options) and other.trees == trees):
            raise ParameterError(f"--criteria: '{other.label}' and '{choice.label}' are "
                                 "the same criterion with the same parameters")
    return method_of(choice)


def _tuned(entry: str) -> Tuned:
    name, *assignments = (piece.strip() for piece in entry.split(":"))
    params, names, leaders, options = [], [], set(), []
    for assignment in assignments:
        key, _, value = (part.strip() for part in assignment.partition("="))
        if value == AUTO:
            names.append(key)
        elif key in ENTRY_OPTIONS:
            options.append((key, parse_option(entry, key, value)))
        elif value.startswith("@"):
            names.append(key)
            leaders.add(value[1:])
        else:
            try:
                params.append((key, float(value)))
            except ValueError:
                raise ParameterError(f"--criteria: {key}={value!r} in {entry!r} is not a "
                                     "number, auto or @METHOD") from None
    if leaders and (len(leaders) > 1 or len(names) > len(
            [a for a in assignments if "=@" in a.replace(" ", "")])):
        raise ParameterError(f"--criteria: {entry!r} must take all its tuned parameters "
                             "from one method (@METHOD), or tune them (auto)")
    return Tuned(entry, name, tuple(params), tuple(names),
                 next(iter(leaders)) if leaders else None, tuple(options))


def _with_leader_label(method: Tuned, tuned: list[Tuned]) -> Tuned:
    if method.leader is None:
        return method
    leaders = [t for t in tuned if t.criterion == method.leader and t.leader is None]
    if len(leaders) != 1:
        raise ParameterError(f"--criteria: {method.label!r} follows {method.leader}, which "
                             "must be exactly one tuned (auto) method of the list")
    return dataclasses.replace(method, leader=leaders[0].label)
