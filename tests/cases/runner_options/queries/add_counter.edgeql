insert Counter {
  name := $name, cap := $cap, samples := $samples, labels := $labels, level := $level,
  ratio := $ratio, note := $note, data := $data, blob := $blob, seen_at := $seen_at,
}
unless conflict on (.name);
