# The signed-in user, or nothing.
select User { name } filter .id = global current_user_id;
