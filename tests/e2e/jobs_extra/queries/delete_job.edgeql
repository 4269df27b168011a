# Delete one job (refused while a worker holds it: on target delete restrict).
delete Job filter .id = <uuid>$id;
