select Collection {
  name,
  heavy := any(.characters@weight >= <int32>$w),
  all_s := all(.characters.rank = Rank.S),
} order by .name;
