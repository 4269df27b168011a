select Post { title, is_mine } filter .is_mine order by .title;
