select Watchlist {
  name,
  favourite: { title },
  fav_movie := .favourite[is Movie] { release_year },
  items: { title, @added } order by .title,
  shows := .items[is Show] { title, seasons },
} order by .name
