"""The data model of Gel's ``auth`` extension as ordinary tables (``using extension auth;``).

Gel's auth extension (https://docs.geldata.com/reference/auth) is two things: an HTTP service of
the Gel server (OAuth, email and password, magic links, WebAuthn; it signs the token a client
sets as the global ``ext::auth::client_token``), and a data model -- the types ``ext::auth::Identity``
and its relatives, which application schemas link to (``required identity: ext::auth::Identity;``,
the docs' "Example usage"). Postgres cannot provide the service; the data model it can hold. So
schemac (a deliberate deviation from issue 11, which asked for a diagnostic) lowers the data model
to ordinary tables of module ``ext::auth`` (``ext_auth_identity``, ``ext_auth_local_identity``,
...), with the members, constraints and inheritance of Gel's own definition of the extension
(package ``auth`` 1.0): a team leaving Gel imports its identities and keeps its foreign keys.

Only the types a schema names (anywhere in its files: a link's target, a cast, a path, the
global below) are created, with their bases and the types they link to.

* ``Auditable`` (abstract): ``created_at`` (default ``datetime_current()``, readonly) and
  ``modified_at`` (rewritten on insert and update to ``datetime_current()``);
* ``Identity``: ``issuer``, ``subject``, exclusive on ``(issuer, subject)``;
  ``LocalIdentity`` extends it, its ``subject`` rewritten on insert to ``<str>.id``;
* ``Factor`` (abstract): ``identity`` to a ``LocalIdentity`` (exclusive, ``on target delete
  delete source``); ``EmailFactor`` (``email``, ``verified_at``), ``EmailPasswordFactor``
  (``email`` exclusive, ``password_hash``), ``MagicLinkFactor`` (``email`` exclusive),
  ``WebAuthnFactor`` (``user_handle``, ``credential_id`` and ``public_key`` exclusive, exclusive
  on ``(email, credential_id)``);
* ``WebAuthnRegistrationChallenge``, ``WebAuthnAuthenticationChallenge``, ``PKCEChallenge``,
  ``OneTimeCode``, ``AuthenticationAttempt`` and the enum ``AuthenticationAttemptType``.

Not carried over: Gel 7's permission-based access policies of ``Auditable`` (``ap_read`` /
``ap_write``: schemac has no permissions) and ``WebAuthnFactor``'s trigger asserting one
``user_handle`` per email (an ``assert`` in a trigger body is not lowered).

The service's global: Gel computes ``global ext::auth::ClientTokenIdentity`` from the token
(``select Identity filter .id = <the token's subject>``). Here the application's own auth
resolves the identity and supplies its id as the ordinary global ``ext::auth::identity_id``
(TS ``createRunner(db, { globals: { "ext::auth::identity_id": id } })``, Go
``Globals{ExtAuthIdentityID: &id}``); ``ClientTokenIdentity`` is the computed global
``(select Identity filter .id = global identity_id)``, exactly Gel's definition with the token
verification left to the application. ``global ext::auth::client_token`` (the token itself),
the configuration types (``AuthConfig``, the provider configurations, ``cfg::`` objects of the
server) and the extension's functions stay refused (E0206).

The compiler core does not import Pants (this module is plain data and a small pruning pass).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Iterable, Optional, Set, Tuple

from schemac.syntax import tree as ast

MODULE = "ext::auth"
#: The global the application supplies: the id of the request's ``ext::auth::Identity``.
IDENTITY_GLOBAL = "identity_id"
CLIENT_TOKEN_IDENTITY = "ClientTokenIdentity"

#: The extension's data model in Gel's schema language (members, constraints and inheritance
#: as Gel's auth extension package 1.0 defines them; see the module docstring).
SDL = """\
module ext {
module auth {
  abstract type Auditable {
    required created_at: datetime {
      default := datetime_current();
      readonly := true;
    }
    required modified_at: datetime {
      rewrite insert, update using (datetime_current());
    }
  }

  type Identity extending Auditable {
    required issuer: str;
    required subject: str;
    constraint exclusive on ((.issuer, .subject));
  }

  type LocalIdentity extending Identity {
    overloaded required subject: str {
      rewrite insert using (<str>.id);
    }
  }

  abstract type Factor extending Auditable {
    required identity: LocalIdentity {
      constraint exclusive;
      on target delete delete source;
    }
  }

  type EmailFactor extending Factor {
    required email: str;
    verified_at: datetime;
  }

  type EmailPasswordFactor extending EmailFactor {
    overloaded required email: str {
      constraint exclusive;
    }
    required password_hash: str;
  }

  type MagicLinkFactor extending EmailFactor {
    overloaded required email: str {
      constraint exclusive;
    }
  }

  type WebAuthnFactor extending EmailFactor {
    required user_handle: bytes;
    required credential_id: bytes {
      constraint exclusive;
    }
    required public_key: bytes {
      constraint exclusive;
    }
    constraint exclusive on ((.email, .credential_id));
  }

  type WebAuthnRegistrationChallenge extending Auditable {
    required challenge: bytes {
      constraint exclusive;
    }
    required email: str;
    required user_handle: bytes;
    constraint exclusive on ((.user_handle, .email, .challenge));
  }

  type WebAuthnAuthenticationChallenge extending Auditable {
    required challenge: bytes {
      constraint exclusive;
    }
    required multi factors: WebAuthnFactor {
      constraint exclusive;
      on target delete delete source;
    }
  }

  type PKCEChallenge extending Auditable {
    required challenge: str {
      constraint exclusive;
    }
    auth_token: str;
    refresh_token: str;
    id_token: str;
    identity: Identity {
      on target delete delete source;
    }
  }

  type OneTimeCode extending Auditable {
    required code_hash: bytes {
      constraint exclusive;
    }
    required expires_at: datetime;
    index on (.expires_at);
    required factor: Factor {
      on target delete delete source;
    }
  }

  scalar type AuthenticationAttemptType extending enum<SignIn, EmailVerification, PasswordReset, MagicLink,
                                                      OneTimeCode>;

  type AuthenticationAttempt extending Auditable {
    required factor: Factor {
      on target delete delete source;
    }
    required attempt_type: AuthenticationAttemptType;
    required successful: bool;
  }

  global identity_id: uuid;
  global ClientTokenIdentity := (select Identity filter .id = global identity_id);
}
}
"""

#: Names of ``ext::auth`` that belong to the service (the server's configuration objects, the
#: token global): refused (E0206) with the reason.
SERVICE_ONLY = {
    "client_token": "the token is verified by the Gel server's auth service; verify it in your application "
                    "and set the global ext::auth::identity_id to the identity's id",
    "AuthConfig": "a configuration object of the Gel server",
    "ProviderConfig": "a configuration object of the Gel server",
    "OAuthProviderConfig": "a configuration object of the Gel server",
    "OpenIDConnectProvider": "a configuration object of the Gel server",
    "AppleOAuthProvider": "a configuration object of the Gel server",
    "AzureOAuthProvider": "a configuration object of the Gel server",
    "DiscordOAuthProvider": "a configuration object of the Gel server",
    "SlackOAuthProvider": "a configuration object of the Gel server",
    "GitHubOAuthProvider": "a configuration object of the Gel server",
    "GoogleOAuthProvider": "a configuration object of the Gel server",
    "EmailPasswordProviderConfig": "a configuration object of the Gel server",
    "WebAuthnProviderConfig": "a configuration object of the Gel server",
    "MagicLinkProviderConfig": "a configuration object of the Gel server",
    "UIConfig": "a configuration object of the Gel server",
    "WebhookConfig": "a configuration object of the Gel server",
}

_PARSED: Optional[ast.SchemaFile] = None


def _parsed() -> ast.SchemaFile:
    global _PARSED
    if _PARSED is None:
        from schemac.syntax.parser import parse_schema

        _PARSED = parse_schema("<ext::auth>", SDL)
    return _PARSED


def referenced_names(files: Iterable[ast.SchemaFile]) -> Set[str]:
    """The ``ext::auth`` names (``Identity``, ``ClientTokenIdentity``) written anywhere in
    ``files``: every string of their syntax trees that starts with ``ext::auth::``."""
    prefix = MODULE + "::"
    found: Set[str] = set()
    stack: list = list(files)
    seen: Set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if node.startswith(prefix):
                found.add(node[len(prefix):].split("::")[0].split(".")[0])
            continue
        if isinstance(node, (tuple, list)):
            stack.extend(node)
            continue
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            if id(node) in seen:
                continue
            seen.add(id(node))
            for f in dataclasses.fields(node):
                value = getattr(node, f.name)
                if isinstance(value, (str, tuple, list)) or dataclasses.is_dataclass(value):
                    stack.append(value)
    return found


def data_model(names: Set[str]) -> Optional[ast.SchemaFile]:
    """The part of :data:`SDL` that ``names`` (from :func:`referenced_names`) needs: the named
    types and enums, their bases and the types they link to (transitively), and the two globals
    when ``Identity`` is created (named, or through ``ClientTokenIdentity``, ``identity_id`` or a
    subtype). ``None`` when nothing is needed."""
    full = _parsed()
    types: Dict[str, ast.TypeDecl] = {t.name: t for t in full.types}
    enums = {e.name: e for e in full.enums}
    want_globals = bool(names & {CLIENT_TOKEN_IDENTITY, IDENTITY_GLOBAL})
    todo = [n for n in names if n in types or n in enums]
    if want_globals:
        todo.append("Identity")
    keep: Set[str] = set()
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        t = types.get(name)
        if t is None:
            continue
        todo.extend(b.split("::")[-1] for b, _ in t.extends)
        for p in t.pointers:
            if p.type is not None:
                target = p.type.name.split("::")[-1]
                if target in types or target in enums:
                    todo.append(target)
    if not keep:
        return None
    return dataclasses.replace(
        full,
        types=tuple(t for t in full.types if t.name in keep),
        enums=tuple(e for e in full.enums if e.name in keep),
        # (always: a query may read ClientTokenIdentity where the schema does not)
        globals=tuple(g for g in full.globals if "Identity" in keep),
        extensions=(),
    )


def refusal(name: str) -> Optional[Tuple[str, str]]:
    """(message, hint) for an ``ext::auth`` name that stays refused, or ``None`` for a name of
    the data model (or an unknown one)."""
    short = name[len(MODULE) + 2:] if name.startswith(MODULE + "::") else name
    why = SERVICE_ONLY.get(short)
    if why is None:
        return None
    return (f"'{name}' belongs to the service of Gel's 'auth' extension, which Postgres does not have",
            why + " (https://docs.geldata.com/reference/auth)")


def data_model_names() -> Set[str]:
    """The names of every type, enum and global of the data model."""
    full = _parsed()
    return {t.name for t in full.types} | {e.name for e in full.enums} | {g.name for g in full.globals}
