insert Order { user := $user, table := $table, group := $group, note := $note }
unless conflict on (.table, .user);
