# Both paths read the same label (Gel factors the common prefix .labels).
select Story { title } filter .labels.kind = <str>$kind and .labels.name ilike <str>$pattern and .views >= 0
