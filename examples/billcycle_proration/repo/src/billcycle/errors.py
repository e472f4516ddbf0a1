"""Exceptions raised by billcycle."""


class BillingError(Exception):
    """Base class for billing errors."""


class RefundError(BillingError):
    """A refund would exceed what was charged."""
