update User filter .select = $old set { select := $new<str> };
