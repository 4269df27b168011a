# the editors of the posts each member wrote: a path after a backlink, with a shape
select Member { handle, editors := .<author[is Post].editor { handle } } order by .handle
