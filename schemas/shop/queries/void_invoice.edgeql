# Void an issued invoice, so that a corrected one can be issued for the same order.
update billing::Invoice
  filter .number = $number and .status = billing::InvoiceStatus.Issued
  set { status := billing::InvoiceStatus.Void };
