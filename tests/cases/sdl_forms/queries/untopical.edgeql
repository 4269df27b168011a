select Question { title, topic_names } filter not exists .topic_names;
