select Story { title } filter .labels.name = <str>$label
