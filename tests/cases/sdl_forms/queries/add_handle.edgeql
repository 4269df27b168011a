insert Handle { realm := <str>$realm, name := <str>$name, code := <optional str>$code };
