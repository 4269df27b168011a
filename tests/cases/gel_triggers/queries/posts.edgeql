select Post { title, slug, created_at, modified_at, revision, tags: { name } } order by .title
