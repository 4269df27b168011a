with P := Person, B := Book
select P { name, books := count(.<author[is Book]), all_books := count(B) } order by .name;
