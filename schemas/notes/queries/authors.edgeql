# Users with the notes of theirs the signed-in user can read.
select User { name, note_count, notes: { title } } order by .name;
