# An update of a with-bound selection: the selection's objects (and the update's own filter).
with hs := (select Handle filter .realm = <str>$from)
update hs filter .name != <str>$keep
set { realm := <str>$to };
