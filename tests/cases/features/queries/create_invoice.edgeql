insert billing::Invoice { number := $number, account := (select default::Account filter .id = $account_id) };
