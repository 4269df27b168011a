select Post {
  title,
  slug := re_replace(r'[^a-z0-9]+', '-', str_lower(.title), flags := 'g'),
  first_o := re_replace('o', '0', .title),
  author: { handle, wallet: { coins } },
  editor: { handle },
  author_karma := .author.karma + 1n,
  big := 12345678901234567890n,
  half := 0.5n,
} order by .title
