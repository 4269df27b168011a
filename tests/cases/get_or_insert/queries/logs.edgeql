select Log { msg } order by .msg;
