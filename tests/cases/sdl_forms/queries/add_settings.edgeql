# The one Settings object.
insert Settings { motd := <str>$motd };
