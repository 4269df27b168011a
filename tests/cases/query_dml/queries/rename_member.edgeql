# An optional value for a required property compiles, as in Gel: when it is empty the statement
# fails as it runs (MissingRequiredError in Gel; the column's NOT NULL here, SQLSTATE 23502).
update Member filter .telegram_id = <int64>$telegram_id set { name := <optional str>$name }
