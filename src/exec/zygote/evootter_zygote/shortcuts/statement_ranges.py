# Shortcut: pytest's statement range of a traceback line kept by the source text.
# Checked against cold runs by tests/warm.rs:
# a_compiled_module_and_a_traceback_s_statements_are_reused_only_for_the_same_text (a raise
# spanning lines, its module changed to one of other lines and back).

# pytest's statement range of a traceback line (`getstatementrange_ast`: the source parsed,
# every statement of it walked, the block tokenized) is a pure function of the source text,
# the parsed tree's text, the line and the `assertion` flag; pytest 7 walks the whole module
# again for every traceback entry it shows. Kept: each text's tree (`TREES`, returned in place
# of a fresh parse of the same text) and each range.
TREES = {}
TREES_CHARS = [0]
# id of a tree -> (tree, its text): the kept trees and, in a child, the ones pytest parsed.
TREE_TEXTS = {}
RANGES = {}
RANGES_MAX = 1 << 16
TREES_MAX_CHARS = 16 << 20
# In a child: (tree's text, source text, line, assertion, start, end) it computed.
NEW_RANGES = []


def keep():
    """Puts the memo above in front of pytest's `getstatementrange_ast`, where pytest has it
    with today's signature (its `code` module calls it by that name)."""
    try:
        import ast
        import inspect

        from _pytest._code import code, source
    except Exception:
        return
    original = getattr(source, "getstatementrange_ast", None)
    if original is None or getattr(original, "_evootter", False):
        return
    if getattr(code, "getstatementrange_ast", None) is not original:
        return
    if list(inspect.signature(original).parameters) != ["lineno", "source", "assertion", "astnode"]:
        return
    parse = ast.parse

    def getstatementrange_ast(lineno, source, assertion=False, astnode=None):
        try:
            text = str(source)
            if astnode is None:
                tree_text = text
            else:
                kept = TREE_TEXTS.get(id(astnode))
                tree_text = kept[1] if kept is not None and kept[0] is astnode else None
            key = (tree_text, text, lineno, assertion)
            found = RANGES.get(key) if tree_text is not None and ast.parse is parse else None
        except Exception:
            return original(lineno, source, assertion, astnode)
        if found is not None:
            return (TREES[tree_text] if astnode is None else astnode,) + found
        if astnode is None and text in TREES:
            # The kept tree is what a fresh parse of the text gives: later entries of the
            # same traceback then come with a tree of a known text.
            astnode = TREES[text]
        result = original(lineno, source, assertion, astnode)
        if tree_text is not None:
            if astnode is None:
                TREE_TEXTS[id(result[0])] = (result[0], text)
            NEW_RANGES.append(key + result[1:])
        return result

    getstatementrange_ast._evootter = True
    getstatementrange_ast.__wrapped__ = original
    source.getstatementrange_ast = getstatementrange_ast
    code.getstatementrange_ast = getstatementrange_ast


def learn(items):
    """The statement ranges a child reported, with a tree of each text they were computed
    on."""
    import ast
    import warnings

    for tree_text, text, lineno, assertion, start, end in items[:256]:
        if len(RANGES) >= RANGES_MAX:
            return
        for t in (tree_text, text):
            if t not in TREES:
                if TREES_CHARS[0] + len(t) > TREES_MAX_CHARS:
                    return
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        tree = ast.parse(t, "source", "exec")
                    except Exception:
                        return
                TREES[t] = tree
                TREES_CHARS[0] += len(t)
                TREE_TEXTS[id(tree)] = (tree, t)
        RANGES[(tree_text, text, lineno, assertion)] = (start, end)
