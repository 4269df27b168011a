# `.club.name = ...` pins the club (Club.name is exclusive), so with `.handle` the filter pins
# one member through the (club, handle) constraint, as Gel infers it: assert_exists makes the
# result exactly one member.
with member := (select Member filter .club.name = <str>$club and .handle = <str>$handle)
select assert_exists(member) { handle, follows: { title } }
