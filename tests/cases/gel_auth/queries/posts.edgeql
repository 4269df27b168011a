select Post { text, author: { name } } order by .text;
