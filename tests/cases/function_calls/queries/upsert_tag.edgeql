select upsert_tag(name := <str>$name).id
