select Attachment { name } order by .name;
