# The signed-in user's notes in the current tenant, a page at a time.
select Note { body, owner: { name } }
filter .owner = global current_user and .tenant = global tenant
order by .body
limit global page_size;
