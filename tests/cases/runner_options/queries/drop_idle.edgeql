delete Counter filter .hits = 0 and .level ?= <optional Level>$level;
