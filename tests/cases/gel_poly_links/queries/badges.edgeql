# A concrete parent's select: its objects and its subtypes' (https://docs.geldata.com/reference/edgeql/select#polymorphic-queries).
select Badge { label, [is GoldBadge].karat } order by .label;
