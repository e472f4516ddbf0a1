"""billcycle: subscription billing periods, proration and a tiny ledger."""

from .errors import BillingError, RefundError
from .money import format_money, round_money, to_decimal
from .periods import BillingPeriod, add_months, period_containing
from .proration import plan_change_amounts, prorate
from .subscription import Invoice, InvoiceLine, Ledger, Plan, Subscription

__all__ = [
    "BillingError",
    "BillingPeriod",
    "Invoice",
    "InvoiceLine",
    "Ledger",
    "Plan",
    "RefundError",
    "Subscription",
    "add_months",
    "format_money",
    "period_containing",
    "plan_change_amounts",
    "prorate",
    "round_money",
    "to_decimal",
]

__version__ = "1.2.0"
