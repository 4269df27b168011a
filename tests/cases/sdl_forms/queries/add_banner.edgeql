insert Banner { text := <optional str>$text };
