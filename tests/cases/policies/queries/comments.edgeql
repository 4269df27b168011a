select Comment { text } order by .text;
