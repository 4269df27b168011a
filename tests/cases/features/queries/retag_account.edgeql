# Add a nickname and drop tags (multi property += / -=).
update Account filter .id = <uuid>$id set { nicknames += $nick, tags -= <array<str>>$drop };
