update Story
filter .id = <uuid>$id
set { editor := assert_single((select Member filter .nick = <str>$nick)) }
