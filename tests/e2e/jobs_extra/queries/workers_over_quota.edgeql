# Workers past their quota, busiest first.
select Worker { name, processed, quota }
filter .processed > .quota
order by .processed desc;
