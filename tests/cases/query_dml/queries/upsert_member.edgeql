# The else update applies only when its filter holds for the existing member.
select (
  insert Member {
    name := <str>$name,
    telegram_id := <int64>$telegram_id,
    nick := <optional str>$nick,
  }
  unless conflict on .telegram_id
  else (
    update Member
    filter .name = <str>$name
    set { nick := <optional str>$nick }
  )
) { * }
