"""Calls of compiled functions by address, so that a driver is compiled once for all
the functions it calls.

numba compiles a jitted callee into each caller: a driver calling a criterion's
split search is compiled again, whole, for every criterion (and optimised
again with the search inside it). Here the driver instead receives the search's
machine-code address as an int64, a runtime value, and calls it (`caller`) with
numba's own calling convention (arrays and records passed as numba passes them
between jitted functions, exceptions propagated): the driver's type no longer
depends on the search, so it is compiled once, and each search once. The call is
indirect (a few nanoseconds), paid once per search call, never per candidate.

`Signature` names the argument types a family of functions shares; `address`
gives a dispatcher's address for them (compiling it, or loading it from the disk
cache, on first use); `caller` makes the jitted call, which refuses, when the driver
is compiled, arguments that are not exactly those types.
"""
from __future__ import annotations

import numba
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic


class Signature:
    """The argument types of a family of functions called by address, as numba types
    (`of(*values)` reads them off example values)."""

    def __init__(self, name: str, argtypes: tuple):
        self.name = name
        self.argtypes = tuple(argtypes)

    @classmethod
    def of(cls, name: str, *values) -> "Signature":
        return cls(name, tuple(numba.typeof(v) for v in values))


def address(dispatcher, signature: Signature) -> int:
    """The machine-code address of `dispatcher` compiled for `signature`'s types (the
    native entry point, not a Python wrapper)."""
    dispatcher.compile(signature.argtypes)
    compiled = dispatcher.overloads[signature.argtypes]
    return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)


def caller(signature: Signature):
    """A jitted `call(where, *args)`: calls the function at address `where` (int64)
    with `args`, which must have `signature`'s types (checked when the caller is
    compiled), for a function that returns nothing."""
    expected = signature.argtypes

    @intrinsic
    def call(typingctx, where, *args):
        actual = tuple(types.unliteral(a) for a in args)
        if actual != expected:
            wrong = [f"argument {i}: {a}, expected {e}"
                     for i, (a, e) in enumerate(zip(actual, expected)) if a != e]
            raise TypingError(f"a call of {signature.name} by address: "
                              + ("; ".join(wrong) or f"{len(actual)} arguments, expected "
                                 f"{len(expected)}"))

        def codegen(context, builder, sig, llargs):
            fnty = context.call_conv.get_function_type(types.none, expected)
            pointer = builder.inttoptr(llargs[0], fnty.as_pointer())
            values = [context.cast(builder, value, given, wanted) for value, given, wanted
                      in zip(cgutils.unpack_tuple(builder, llargs[1]), args, expected)]
            status, _ = context.call_conv.call_function(builder, pointer, types.none,
                                                        expected, values)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return context.get_dummy_value()

        return types.none(where, types.StarArgTuple.from_types(args)), codegen

    return call
