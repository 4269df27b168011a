update Story
filter .id = <uuid>$id
set { labels += (select Label filter .kind = <str>$kind) }
