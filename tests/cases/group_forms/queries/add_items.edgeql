# A for loop whose body binds an insert and selects its objects with a nested shape
# (https://docs.geldata.com/reference/edgeql/for): one row per inserted item.
with owner := (select Person filter .name = <str>$owner)
for t in array_unpack(<array<str>>$titles) union (
  with it := (insert Item { title := t, owner := owner })
  select it { title, owner: { name } }
)
