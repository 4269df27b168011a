select Log { action, title } order by .title
