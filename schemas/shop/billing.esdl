# Billing: invoices for placed orders and the payments that settle them. Links point back into
# module default (default::Order, default::Customer).

module billing {
  scalar type InvoiceStatus extending enum<Draft, Issued, Paid, Void>;
  enum PaymentMethod { Card, BankTransfer, Voucher }

  type Invoice {
    required number: str {
      constraint exclusive;
      constraint regexp(r'^INV-[0-9]{4}-[0-9]{6}$');
    };
    required link order -> default::Order { on target delete restrict; };
    required link customer -> default::Customer { on target delete restrict; };
    required total: default::Money;
    required currency: default::CurrencyCode { default := 'EUR'; };
    required status: InvoiceStatus { default := InvoiceStatus.Draft; };
    issued_at: datetime;
    due_at: datetime;

    # One live invoice per order: voided invoices are exempt (Gel's `except`).
    constraint exclusive on (.order) except (.status = InvoiceStatus.Void);
    constraint expression on (.due_at >= .issued_at);
  }

  type Payment {
    required link invoice -> Invoice { on target delete restrict; };
    required amount: default::Money;
    required method: PaymentMethod;
    required received_at: datetime { default := datetime_current(); };
    # The payment provider's id of the charge: a webhook delivered twice must not book twice.
    external_ref: str { constraint exclusive; };
  }
}
