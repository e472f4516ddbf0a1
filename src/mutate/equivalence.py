# Trivial compiler equivalence for evootter's mutants: compiles each source given on stdin
# (a JSON list of strings: a function's definition, original or mutated) and prints, one a
# line, a digest of its code with everything that only says where the code came from left
# out (line numbers, column positions, the file name), or `!` and the error when it does
# not compile. Two sources with one digest compile to the same code: they behave alike.
import hashlib
import json
import sys
import types


def _const(c):
    # `1 == 1.0` and `0.0 == -0.0`, so constants compare by type and repr, not by `==`.
    if isinstance(c, types.CodeType):
        return _code(c)
    if isinstance(c, tuple):
        return ("tuple", tuple(_const(x) for x in c))
    if isinstance(c, frozenset):
        return ("frozenset", tuple(sorted((_const(x) for x in c), key=repr)))
    return (type(c).__name__, repr(c))


def _code(co):
    return (
        co.co_name,
        co.co_argcount,
        co.co_posonlyargcount,
        co.co_kwonlyargcount,
        co.co_flags,
        co.co_code,
        tuple(_const(c) for c in co.co_consts),
        co.co_names,
        co.co_varnames,
        co.co_freevars,
        co.co_cellvars,
        getattr(co, "co_exceptiontable", b""),
    )


def main():
    out = []
    for source in json.load(sys.stdin):
        try:
            code = compile(source, "<evootter>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            out.append("!" + str(e).replace("\n", " "))
            continue
        out.append(hashlib.sha256(repr(_code(code)).encode()).hexdigest())
    sys.stdout.write("\n".join(out) + "\n")


main()
