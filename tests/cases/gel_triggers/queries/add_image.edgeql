insert Image { url := <str>$url }
