update Story
filter .id = <uuid>$id
set { editor := {} }
