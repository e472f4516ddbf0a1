"""pagekit: framework-agnostic pagination helpers."""

from .exceptions import EmptyPage, InvalidPage, PageNotAnInteger
from .paginator import Page, Paginator
from .querystring import page_url
from .windows import ELLIPSIS, elided_page_range

__all__ = [
    "ELLIPSIS",
    "EmptyPage",
    "InvalidPage",
    "Page",
    "PageNotAnInteger",
    "Paginator",
    "elided_page_range",
    "page_url",
]

__version__ = "0.4.1"
