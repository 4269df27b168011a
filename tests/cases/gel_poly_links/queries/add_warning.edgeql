insert Warning { body := <str>$body, level := <int16>$level, about := (select Show filter .id = <uuid>$show) };
