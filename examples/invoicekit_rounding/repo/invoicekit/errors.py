"""Exceptions raised by invoicekit."""


class InvoiceError(Exception):
    """Base class of every invoicekit error."""


class InvalidAmount(InvoiceError, ValueError):
    """A value that cannot be read as a monetary amount."""


class CurrencyMismatch(InvoiceError):
    """Two amounts in different currencies were combined."""

    def __init__(self, left: str, right: str) -> None:
        super().__init__(f"cannot combine {left} and {right} amounts")
        self.left = left
        self.right = right
