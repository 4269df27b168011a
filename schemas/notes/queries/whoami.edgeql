# The signed-in user and how many notes they can see of their own.
select User { name, email, note_count } filter .id = global current_user_id;
