with ids := <array<uuid>>$ids
for sid in array_unpack(ids) union (
  update Story filter .id = sid set { views := .views + 1 }
)
