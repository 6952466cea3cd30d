/// The release this build belongs to, named in support bundles.
public enum AppVersion {
    public static let current = "0.16.0-dev"
}
