# Links to an abstract type with several concrete subtypes (polymorphic links): one FK column
# per subtype; shapes read the common properties or one subtype's with [is T]
# (https://docs.geldata.com/reference/datamodel/inheritance, .../edgeql/shapes).

abstract type Content {
  required title: str;
  kind := .__type__.name;
  shout := str_upper(.title);
}

type Movie extending Content {
  release_year: int32;
  notes := .<about[is Note];
}

type Show extending Content {
  seasons: int32;
}

type Review {
  required body: str;
  required subject: Content {
    on target delete delete source;
  }
}

type Watchlist {
  required name: str;
  favourite: Content {
    on target delete allow;
  }
  multi items: Content {
    on target delete allow;
    added: datetime;
  }
}

# Queries on an abstract type read the objects of its concrete subtypes
# (https://docs.geldata.com/reference/edgeql/select#polymorphic-queries).
abstract type Note {
  required body: str;
  kind := .__type__.name;
  required about: Content {
    on target delete delete source;
  }
}

type Tip extending Note {
}

type Warning extending Note {
  required level: int16;
}

# A concrete type other types extend: its select reads its subtypes' objects too
# (https://docs.geldata.com/reference/datamodel/inheritance).
type Badge {
  required label: str;
}

type GoldBadge extending Badge {
  required karat: int16;
}
