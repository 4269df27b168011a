# Access policies (https://docs.geldata.com/reference/datamodel/access_policies), enforced by
# rewriting every query: reads skip what is not allowed, writes that are not allowed fail.

global current_user_id: uuid;
global current_user := (select User filter .id = global current_user_id);

type User {
  required name: str;
  multi link notes := .<owner[is Note];
  note_count := count(.<owner[is Note]);
}

type Note {
  required body: str;
  required owner: User;
  public: bool { default := false };
  archived: bool;

  # Owners do everything with their own notes...
  access policy owner_has_full_access
    allow all
    using (.owner ?= global current_user) {
      errmessage := 'only the owner can write this note';
    };
  # ... everyone reads public ones ...
  access policy public_notes_are_readable
    allow select
    using (.public ?? false);
  # ... archived notes neither change nor go away ...
  access policy archived_notes_are_frozen
    deny update read, delete
    using (.archived ?? false);
  # ... and a note has a body.
  access policy a_note_has_a_body
    deny insert, update write
    using (len(.body) = 0) {
      errmessage := 'a note needs a body';
    };
}

# Paths to an object in a policy: a path ending in a link compares the object (its id), and a
# path may follow an expression that holds one object (assert_single).
type Comment {
  required note: Note;
  required text: str;
  attachment: Attachment;

  access policy note_owner_has_full_access
    allow all
    using (.note.owner ?= global current_user);
}

type Attachment {
  required name: str;
  comment := .<attachment[is Comment];

  access policy comment_owner_has_full_access
    allow all
    using (assert_single(.comment).note.owner ?= global current_user);
}
