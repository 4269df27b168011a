# A backlink's property in a filter (https://docs.geldata.com/reference/datamodel/links#backlinks):
# the people owning at least one item of the kind.
select Person { name } filter .<owner[is Item].kind = <Kind>$kind order by .name
