"""Helpers for building page links."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def page_url(url: str, number: int, param: str = "page") -> str:
    """Return *url* with its *param* query parameter set to *number*.

    Other query parameters are kept in their original order.  Page 1 removes
    the parameter entirely so that the first page has a canonical URL.

    >>> page_url("/items?sort=name&page=3", 4)
    '/items?sort=name&page=4'
    >>> page_url("/items?page=3", 1)
    '/items'
    """
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != param]
    if int(number) != 1:
        query.append((param, str(int(number))))
    return urlunsplit(parts._replace(query=urlencode(query)))
