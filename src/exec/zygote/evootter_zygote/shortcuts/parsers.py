# Shortcut: pytest 7's argparse parser reused while its options are unchanged.
# Checked against cold runs by tests/warm.rs:
# warm_and_cold_runs_log_the_same_on_<example>, which runs every bundled example under
# Debian's pytest 7 as well (newer pytests have no parser to reuse).


def reuse():
    """pytest before 8 builds its whole argparse parser anew every time it parses (six times
    a run); the options only ever grow, and a parser is only read while parsing. So a parser
    is reused while its options are what they were when it was built. Returns whether this
    pytest has that method (newer ones grow one parser as options are added)."""
    try:
        from _pytest.config import argparsing
    except Exception:
        return False
    cls = argparsing.Parser
    build = cls.__dict__.get("_getparser")
    if build is None or getattr(build, "_evootter", False):
        return build is not None

    def signature(self):
        return (
            id(self.extra_info),
            getattr(self, "prog", None),
            tuple((id(g), len(g.options)) for g in self._groups),
            len(self._anonymous.options),
        )

    def _getparser(self):
        try:
            sig = signature(self)
        except Exception:
            return build(self)
        kept = self.__dict__.get("_evootter_parser")
        if kept is not None and kept[0] == sig:
            return kept[1]
        parser = build(self)
        self.__dict__["_evootter_parser"] = (sig, parser)
        return parser

    _getparser._evootter = True
    cls._getparser = _getparser
    return True
