# Shapes as Gel projects write them (https://docs.geldata.com/reference/edgeql/shapes):
# splats {*} / {**}, computed elements (name := expr), and query file names in snake_case,
# kebab-case and camelCase.

type Author {
  required name: str {
    constraint exclusive;
  };
  bio: str;
  shout := str_upper(.name);
  multi link books := .<author[is Book];
}

type Book {
  required title: str;
  pages: int32;
  required author: Author;
  multi tags: Tag;
}

type Tag {
  required name: str {
    constraint exclusive;
  };
}
