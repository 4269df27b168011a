select Image { url } order by .url
