# Issue the invoice of a placed order. Null when the order already has a live (non-void)
# invoice.
insert billing::Invoice {
  number := $number,
  order := (select default::Order filter .id = <uuid>$order_id),
  customer := (select Customer filter .id = <uuid>$customer_id),
  total := $total,
  status := billing::InvoiceStatus.Issued,
  issued_at := datetime_of_transaction(),
  due_at := <datetime>$due_at,
}
unless conflict on .order;
