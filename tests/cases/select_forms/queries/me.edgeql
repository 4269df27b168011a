select global current_user { name, email };
