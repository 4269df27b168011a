# Accounts whose e-mail or name is $who: one parameter, used twice.
with who := <str>$who
select Account { id, email } filter .email = who or .name = who
order by .email;
