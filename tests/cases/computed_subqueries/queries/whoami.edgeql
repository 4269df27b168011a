select Author { name, handle } filter .id = global current_user;
