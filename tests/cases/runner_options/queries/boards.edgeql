select Board { title, lead: { name, hits, cap }, counters: { name, hits, samples } }
order by .title;
