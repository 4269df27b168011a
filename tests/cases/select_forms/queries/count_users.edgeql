# How many users there are.
select count(User);
