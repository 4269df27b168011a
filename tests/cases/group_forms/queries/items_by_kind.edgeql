# Every item, grouped by its kind (items without one form a group of their own).
group Item { title, owner: { name } } by .kind
