select Handle { realm, name, code_lc } filter .realm = <str>$realm order by .name;
