select upsert_tag(name := <str>$name) {
    name,
    uses
}
