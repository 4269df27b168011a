# Create a tag; null when its slug is taken.
insert Tag { name := $name, slug := $slug }
  unless conflict on .slug;
