"""Exceptions raised by :mod:`pagekit`."""


class InvalidPage(Exception):
    """Base class for every error about a requested page number."""


class PageNotAnInteger(InvalidPage):
    """The requested page number could not be interpreted as an integer."""


class EmptyPage(InvalidPage):
    """The requested page number is out of range and holds no results."""
