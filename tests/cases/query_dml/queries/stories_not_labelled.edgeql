select Story { title } filter not (.labels.name = <str>$label)
