# Computeds and computed globals holding sub-queries
# (https://docs.geldata.com/reference/datamodel/computeds,
#  https://docs.geldata.com/reference/datamodel/globals): nothing is stored; each query that
# reads one gets the sub-query inlined into its one statement.

global current_user_id: uuid;

# A computed global with a shape: the shape only chooses what a query outputs; as a value the
# global is its one object.
global current_user := (
  assert_single((select Author { name } filter .id = global current_user_id))
);

type Author {
  required name: str {
    constraint exclusive;
  };
  required handle: str {
    constraint exclusive;
  };
  multi follows: Author;

  # Some of a stored multi link's objects.
  multi link followed_a := (select .follows filter .name like 'A%');
  # Some of a backlink's objects.
  multi link published := (select .<author[is Post] filter .published);
  # Aggregates of a property over a set of objects: empty (min, max) or 0 (sum) without any.
  property first_post := (select min(.<author[is Post].created));
  property last_published := max(.published.created);
  property total_likes := sum(.<author[is Post].likes);
  # A sub-select tested with exists.
  property has_drafts := exists (select .<author[is Post] filter not .published);
  # min / max of a set literal.
  property best_score := max({.score_a, .score_b});
  score_a: int32;
  score_b: int32;

  # A path through links: the distinct authors reviewing my posts.
  multi link my_reviewers := .<author[is Post].reviewers;
  # A union keeps duplicates (Gel's union is a multiset union).
  multi link circle := (.follows union .<author[is Post].reviewers);
  # exists of a filtered union of backlinks.
  property has_open_work := exists (select .<author[is Post] union .<co_author[is Post] filter not .published);
  # `[is T]` on a link to an abstract type with several subtypes.
  multi pins: Pinnable;
  multi link pinned_posts := .pins[is Post];
  # assert_single of a set: at most one object (two fail the statement, as in Gel).
  link best_post := (select assert_single((select .<author[is Post] filter .likes >= 10)));
  # A with block around a set: my posts' reviewers other than me.
  multi link outside_reviewers := (with me := .id select .<author[is Post].reviewers filter .id != me);
}

abstract type Pinnable {}

type Note extending Pinnable {
  required text: str;
}

type Post extending Pinnable {
  required title: str;
  required author: Author;
  co_author: Author;
  multi reviewers: Author;
  required published: bool;
  required likes: int32;
  required created: datetime;
  editor_handle: str;
  # `Post.editor_handle`: in a computed of Post, the Post it is evaluated for.
  link editor := (select Author filter .handle = Post.editor_handle);
  # A `with` block naming a set of regular expression matches, counted.
  property bangs := (with m := re_match_all(r'!+', .title) select count(m));
  property loud := exists re_match_all(r'[A-Z]{3}', .title);
}
