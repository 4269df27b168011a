# Any conflict (the expression constraints too) leaves the handle out.
insert Handle { realm := <str>$realm, name := <str>$name } unless conflict;
