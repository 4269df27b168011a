select assert_single((select Book filter .title = <str>$t), message := 'several books') { title };
