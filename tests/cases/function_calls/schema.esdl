# User functions returning objects, called at the top of a query: the function's body is
# inlined as the query (https://docs.geldata.com/reference/datamodel/functions); and count() of
# writes (queries clean_up, reset_scores, drop_tag).
module default {
    type Tag {
        required name: str {
            constraint exclusive;
        }
        required uses: int64 {
            default := 0;
        }
    }

    type Post {
        required title: str {
            constraint exclusive;
        }
        required score: int64 {
            default := 0;
        }
        multi tags: Tag;
    }

    type Comment {
        required body: str;
        required post: Post;
    }

    # A modifying function: the tag of that name, inserted when there is none.
    function upsert_tag(named only name: str) -> Tag {
        using (
            select (
                insert Tag { name := name }
                unless conflict on (.name) else (select Tag)
            )
        );
    }

    function new_post(title: str, score: int64 = 1) -> Post
        using (insert Post { title := title, score := score });

    function bump(named only title: str, named only by: int64 = 1) -> set of Post
        using (update Post filter .title = title set { score := .score + by });

    function top_posts(min_score: int64, named only n: int64 = 10) -> set of Post
        using (select Post filter .score >= min_score order by .score desc then .title limit n);

    # An object parameter: the argument <Post>$post is the post of that id.
    function comment_on(post: Post, body: str) -> Comment
        using (insert Comment { post := post, body := body });

    function post_titled(title: str) -> optional Post
        using (select Post filter .title = title);
}
