# Globals (https://docs.geldata.com/reference/datamodel/globals): values the application
# supplies per request; each query that reads one binds it as a parameter.

global current_user_id: uuid;

# schemac extension: a required global without a default must be set by the application (the
# runner refuses to send a query that reads it while it is unset). Gel requires a default.
required global tenant: str;

global page_size: int64 {
  default := 20;
};

# A computed global: an object, by its id, inlined where it is read.
global current_user := (select User filter .id = global current_user_id);

type User {
  required name: str;
  required tenant: str;
}

type Note {
  required body: str;
  # A default reading a global: written by each insert that leaves the link out.
  required owner: User {
    default := global current_user;
  };
  required tenant: str;
}
