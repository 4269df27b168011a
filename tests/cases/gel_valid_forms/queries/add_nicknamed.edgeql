# A multi property from array_unpack (https://docs.geldata.com/reference/datamodel/properties).
insert Person { name := <str>$name, nicknames := array_unpack(<array<str>>$nicknames) };
