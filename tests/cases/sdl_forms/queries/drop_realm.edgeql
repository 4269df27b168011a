with hs := (select Handle filter .realm = <str>$realm)
delete hs;
