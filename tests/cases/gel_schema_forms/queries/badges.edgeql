select Badge { label, shiny := Badge is GoldBadge, plain := Badge is not GoldBadge } order by .label
