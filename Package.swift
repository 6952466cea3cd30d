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
        .library(name: "DoseCore", targets: ["DoseCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // Every rule of the night, pure: Foundation value types only, no clock, no I/O.
        .target(name: "DoseCore", swiftSettings: strict),
        .testTarget(
            name: "DoseCoreTests",
            dependencies: [
                "DoseCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
