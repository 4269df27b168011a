# Link values and writes of issue 12 (tests/e2e/test_query_links_e2e.py): a link assigned any
# selection of its objects (a `with` name bound to one, `assert_exists` / `assert_single` of
# it, `-= (select .link filter ...)`), polymorphic multi links written through such names,
# and writes bound in `with`, selected with a nested shape and upserts on types with access
# policies (https://docs.geldata.com/reference/datamodel/access_policies).
global club_id: uuid;
global club := (select Club filter .id = global club_id);

type Club {
  required name: str { constraint exclusive; };
}

abstract type ClubOwned {
  required club: Club;
  access policy own_club
    allow all
    using (global club ?= .club) {
      errmessage := 'only members of the club write this';
    };
  access policy anyone_reads
    allow select;
}

abstract type Work {
  required code: str;
}

type Book extending Work {
  pages: int32;
  constraint exclusive on (.code);
}

type Film extending Work {
  minutes: int32;
  constraint exclusive on (.code);
}

type Member extending ClubOwned {
  required handle: str;
  required points: int32 { default := 0; };
  multi follows: Shelf;
  constraint exclusive on ((.club, .handle));
  access policy points_stay_positive
    deny insert, update write
    using (.points < 0) {
      errmessage := 'points cannot go below zero';
    };
}

type Shelf extending ClubOwned {
  required title: str;
  curator: Member;
  highlight: Work;
  multi works: Work;
  access policy has_a_title
    deny insert, update write
    using (len(.title) = 0) {
      errmessage := 'a shelf needs a title';
    };
}
