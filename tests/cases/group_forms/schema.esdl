# Gel's group statement (https://docs.geldata.com/reference/edgeql/group) and detached: items grouped by a
# property, a single link, using-expressions, with a select over the groups.
module default {
  scalar type Kind extending enum<Book, Film, Game>;
  type Shelf { required name: str; }
  type Person { required name: str { constraint exclusive; }; }
  type Item {
    required title: str;
    kind: Kind;
    year: int32;
    added: datetime;
    shelf: Shelf;
    owner: Person;
  }
}
