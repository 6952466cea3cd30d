import DoseStore

/// This build's version, as `dosetap --version` prints it.
public enum DoseTapVersion {
    /// The release, its minor number the last issue it carries.
    public static let release = "0.56.0"

    /// "dosetap 0.56.0 (schemas: SQLite 13, PostgreSQL 20)".
    public static var text: String {
        "dosetap \(release) (schemas: SQLite \(SchemaVersions.sqlite), PostgreSQL \(SchemaVersions.postgres))"
    }
}
