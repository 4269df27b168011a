delete Story filter .labels.name = <str>$label
