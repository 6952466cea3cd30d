// swift-tools-version:6.1
import PackageDescription

// Library targets must say `public import` for what their API exposes; this keeps module edges honest.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "dosetap",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "dosetap", targets: ["dosetap"]),
        .library(name: "DoseCore", targets: ["DoseCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // Every rule of the night, pure: Foundation value types only, no clock, no I/O.
        .target(name: "DoseCore", swiftSettings: strict),
        // Persistence: SQLite through GRDB (the embedded default) and PostgreSQL through postgres-nio (SPEC §5.6); schema,
        // migrations, one transaction per action, queries, export.
        .target(
            name: "DoseStore",
            dependencies: [
                "DoseCore", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Use cases and the wire format every surface shares (JSON objects of SPEC §5.1).
        .target(
            name: "DoseApp",
            dependencies: [
                "DoseCore", "DoseStore", .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // `dosetap serve`: the JSON API of SPEC §5.3 (and, later, the web UI and reminder engine).
        .target(
            name: "DoseServer",
            dependencies: [
                "DoseApp", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The web UI's files, compiled into the binary so `dosetap serve` needs nothing beside it: every file of
            // Resources as bytes, and every page template as text through the TemplateCatalogue plugin.
            exclude: ["Resources/Templates"],
            resources: [.embedInCode("Resources")],
            swiftSettings: strict,
            plugins: ["TemplateCatalogue"]
        ),
        // Writes the page templates into one Swift file at build time (run by the plugin below, on the build machine).
        .executableTarget(name: "template-catalogue"),
        .plugin(name: "TemplateCatalogue", capability: .buildTool(), dependencies: ["template-catalogue"]),
        // The command line, per SPEC §5.1.
        .target(
            name: "DoseCLI",
            dependencies: [
                "DoseApp", "DoseServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "dosetap", dependencies: ["DoseCLI"]),
        // The parsers that take outside input, as functions of bytes, for libFuzzer and for replaying the corpus.
        .target(
            name: "DoseFuzzing", dependencies: ["DoseApp", "DoseStore", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict),
        // libFuzzer's entry points when built by scripts/fuzz.sh; otherwise a tool that replays inputs through a target.
        .target(name: "CLibFuzzer"),
        .executableTarget(name: "dosetap-fuzz", dependencies: ["DoseFuzzing", "CLibFuzzer"]),
        // The test clock, ids and wall-clock dates every test target shares (linked only into tests).
        .target(name: "DoseTestSupport", path: "Tests/DoseTestSupport", swiftSettings: strict),
        .testTarget(
            name: "DoseCoreTests",
            dependencies: ["DoseCore", "DoseTestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // The use cases on an in-memory database, below every edge.
        .testTarget(
            name: "DoseAppTests",
            dependencies: [
                "DoseApp", "DoseStore", "DoseCore", "DoseTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .testTarget(
            name: "DoseStoreTests",
            dependencies: [
                "DoseStore", "DoseTestSupport", "DoseApp", "DoseFuzzing", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            // Read from the source tree by path (`#filePath`), so a test always sees the committed files.
            exclude: ["Fixtures"]),
        // Runs the built `dosetap` binary end to end; depending on it makes `swift test` build it first.
        .testTarget(
            name: "DoseServerTests",
            dependencies: [
                "DoseServer", "DoseApp", "DoseStore", "DoseTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DoseCLITests",
            dependencies: [
                "DoseApp", "DoseCLI", "dosetap", "DoseTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
    ]
)
