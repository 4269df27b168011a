# Sets of objects of a query's `with` names and paths from them, array_agg, any/all,
# assert_exists (https://docs.geldata.com/reference/edgeql/with, .../edgeql/paths,
# .../stdlib/set): see tests/e2e/test_query_sets_e2e.py.
module default {
  scalar type Rank extending enum<S, A, B>;
  type Player { required name: str { constraint exclusive; } }
  type Character {
    required cid: int32 { constraint exclusive; }
    required rank: Rank;
    required image: str;
  }
  type Waifu {
    required character: Character;
    required owner: Player;
  }
  type Roll {
    required author: Player;
    required reason: str;
    coins: int32;
    multi received: Waifu;
  }
  type Collection {
    required name: str;
    multi characters: Character { weight: int32; }
  }
}
