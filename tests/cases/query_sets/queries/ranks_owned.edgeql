select distinct Waifu.character.rank;
