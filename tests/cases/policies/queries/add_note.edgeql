insert Note { body := <str>$body, public := <optional bool>$public, owner := global current_user };
