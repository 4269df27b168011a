# Gel's auth extension (https://docs.geldata.com/reference/auth): its data model becomes tables
# (ext_auth_identity, ext_auth_local_identity, ext_auth_email_password_factor), created because
# this schema names those types; its service (sign-in flows, tokens) is the application's. The
# application supplies the signed-in identity's id as the global ext::auth::identity_id, and
# ext::auth::ClientTokenIdentity is that identity, as in Gel.
using extension auth;

module default {
  # The signed-in user: the User whose identity is the request's identity.
  global current_user := (
    assert_single((
      select User
      filter .identity = global ext::auth::ClientTokenIdentity
    ))
  );

  type User {
    required name: str;
    required identity: ext::auth::Identity {
      constraint exclusive;
    };
  }

  # A user who signed up with an email and a password has a local identity and a factor.
  type Account {
    required login: ext::auth::EmailPasswordFactor;
  }

  type Post {
    required text: str;
    required author: User {
      default := global current_user;
    };

    access policy author_has_full_access
      allow all
      using (.author ?= global current_user);

    access policy others_read_only
      allow select;
  }
}
