insert Member { handle := <str>$handle }
