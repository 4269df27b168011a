select User { name, note_count, notes: { body } } order by .name;
