select assert_exists((select Book filter .title = <str>$t), message := 'no such book') { title };
