select Content { title, [is Movie].notes: { body, kind } order by .body } order by .title;
