select Counter { id, name, hits, cap, samples, labels, level, ratio, note, data, blob, seen_at }
filter .name = $name;
