/// The schema versions this build writes: what `dosetap --version` names, so an operator can tell before an upgrade
/// which migrations a binary will apply.
public enum SchemaVersions {
    /// The SQLite file's `user_version`.
    public static var sqlite: Int { Schema.version }
    /// The number of PostgreSQL migrations (`dosetap_migrations`).
    public static var postgres: Int { PostgresSchema.migrations.count }
}
