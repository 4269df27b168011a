select Post { title, bangs, loud } order by .title;
