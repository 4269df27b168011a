# Links to the labels of a kind, with a weight (an existing link gets the new weight).
update Story filter .id = <uuid>$id
set { labels += (select Label { @weight := <int32>$weight } filter .kind = <str>$kind) }
