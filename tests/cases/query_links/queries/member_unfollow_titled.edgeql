# The followed shelves the filter keeps are no longer followed.
update Member filter .club = global club and .handle = <str>$handle
set { follows -= (select .follows filter .title = <str>$title) }
