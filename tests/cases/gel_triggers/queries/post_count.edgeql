select Counter { n } filter .name = 'posts'
