# A with-bound insert of one subtype linked from each object a loop over constants inserts.
with show := (insert Show { title := <str>$title })
for body in {'first', 'second'}
union (insert Review { body := body, subject := show });
