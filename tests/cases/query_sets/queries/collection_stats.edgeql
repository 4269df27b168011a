with player := (select Player filter .name = <str>$name),
  collec := (select Collection filter .id = <uuid>$id),
  charas := (select collec.characters filter .image not ilike '%/default.jpg'),
  owned := (select Waifu filter .owner = assert_exists(player) and .character in charas),
  owned_ids := (select owned.character.cid),
select {
  collection := assert_exists(collec) { name },
  nb_charas := count(charas),
  nb_owned := count(owned_ids),
};
