select Review { body, subject: { id, title } } order by .body
