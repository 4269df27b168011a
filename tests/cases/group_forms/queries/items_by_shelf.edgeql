group Item { title } by .shelf
