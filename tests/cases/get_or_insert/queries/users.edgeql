select User { email, name, touched_at, revision, posts := count(.<author[is Post]) } order by .email;
