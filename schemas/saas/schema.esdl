# A multi-tenant SaaS back office: organizations (tenants), their members and roles, projects
# and API keys. Everything but User belongs to exactly one organization; names and slugs are
# unique per organization. Written mostly in Gel's spelling.

module default {
  # Lower-case letters, digits and inner hyphens; 3 to 40 characters.
  scalar type Slug extending str {
    constraint regexp(r'^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$');
  };

  scalar type Plan extending enum<Free, Team, Enterprise>;
  scalar type MemberRole extending enum<Owner, Admin, Member, Viewer>;
  scalar type ApiScope extending enum<'projects:read', 'projects:write', 'members:read', 'members:write', 'billing'>;

  abstract type Auditable {
    required property created_at -> datetime {
      default := datetime_current();
      readonly := true;
    };
    property updated_at -> datetime;
  }

  # Every tenant-owned object. Deleting an organization deletes what it owns.
  abstract type TenantScoped {
    required link org -> Organization {
      on target delete delete source;
      readonly := true;
    };
  }

  type Organization extending Auditable {
    annotation title := 'Tenant';
    annotation description := 'A customer account; every other object belongs to one.';

    required property name -> str { constraint max_len_value(120); };
    required property slug -> Slug {
      constraint exclusive;
      annotation description := 'Used in URLs: app.example.com/<slug>.';
    };
    required property plan -> Plan { default := Plan.Free; };
    property seat_limit -> int32 { constraint min_value(1); };
    property deleted_at -> datetime;
  }

  type User extending Auditable {
    required property email -> str { constraint exclusive; };
    property name -> str;
  }

  type Membership extending Auditable, TenantScoped {
    required link user -> User {
      on target delete delete source;
      readonly := true;
    };
    required property role -> MemberRole { default := MemberRole.Member; };
    link invited_by -> User { on target delete allow; };

    constraint exclusive on ((.org, .user));
  }

  type Project extending Auditable, TenantScoped {
    required property name -> str { constraint max_len_value(120); };
    required property slug -> Slug;
    property description -> str;
    multi property labels -> str;
    property archived_at -> datetime;

    constraint exclusive on ((.org, .slug));
    # Live projects have distinct names within a tenant; archived ones may repeat a name.
    constraint exclusive on ((.org, .name)) except (exists .archived_at);

    index pg::gin on (.labels);
  }

  type ApiKey extending Auditable, TenantScoped {
    annotation description := 'A machine credential. Only a hash of the secret is stored.';

    # The public, non-secret start of the key (e.g. `sk_live_4f9a`), shown in the UI.
    required property prefix -> str {
      constraint exclusive;
      readonly := true;
    };
    required property secret_hash -> bytes { readonly := true; };
    required property label -> str;
    required property scopes -> array<ApiScope>;
    link created_by -> User {
      on target delete allow;
      readonly := true;
    };
    property expires_at -> datetime { readonly := true; };
    property last_used_at -> datetime;
    property revoked_at -> datetime;

    index pg::gin on (.scopes);
    # Key lookup only ever considers keys that are not revoked.
    index on (.expires_at) filter not exists .revoked_at;
  }
}
