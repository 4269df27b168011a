# Book a payment reported by the payment provider. A webhook delivered twice books once
# (null the second time).
insert billing::Payment {
  invoice := (select billing::Invoice filter .id = <uuid>$invoice_id),
  amount := $amount,
  method := $method,
  external_ref := <str>$external_ref,
}
unless conflict on .external_ref;
