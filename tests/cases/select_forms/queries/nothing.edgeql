select <str>{};
