# Gel's full-text search (https://docs.geldata.com/reference/stdlib/fts): fts::search() as the
# value Gel documents, an optional tuple<object: T, score: float32>, bound in `with` and read
# as res.object and res.score; Gel's query syntax; weight categories (A when none is named) and
# the weights argument; an fts::index inherited from an abstract type; the boards (an abstract
# type with one concrete subtype) holding the notes a search finds, through a backlink.
module default {
  # The docs' example: name in category A, description in B.
  type Item {
    required name: str;
    description: str;
    index fts::index on ((
      fts::with_options(.name, language := fts::Language.eng, weight_category := fts::Weight.A),
      fts::with_options(.description, language := fts::Language.eng, weight_category := fts::Weight.B)
    ));
  }

  # No weight_category: both parts are in category A (fts::with_options' default).
  abstract type Post {
    required title: str;
    body: str;
    index fts::index on ((
      fts::with_options(.title, language := fts::Language.eng),
      fts::with_options(.body, language := fts::Language.eng)
    ));
  }
  type Note extending Post {
    multi tags: Tag;
  }
  type Tag { required name: str { constraint exclusive; }; }

  abstract type Board {
    required name: str;
    multi notes: Note;
  }
  type Pinboard extending Board {}
}
