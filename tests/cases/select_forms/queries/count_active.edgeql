select count(User filter .active);
