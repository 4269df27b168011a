select Note { body, public, owner: { name } } order by .body;
