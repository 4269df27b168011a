select User { first_name } filter exists .posts order by .first_name;
