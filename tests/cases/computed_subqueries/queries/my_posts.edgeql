# The signed-in author's posts, through the computed global.
select Post { title, editor: { name } } filter .author = global current_user order by .title;
