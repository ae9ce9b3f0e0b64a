// swift-tools-version:6.0
//
// swift-keychain: Apple's Keychain Services (`import Security`) for Linux.

import PackageDescription

let strictFlags: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-keychain",
    products: [
        .library(name: "Security", targets: ["Security"]),
        .executable(name: "security", targets: ["SecurityTool"]),
    ],
    targets: [
        // System libraries: Debian's libsqlite3-dev and libssl-dev.
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            path: "Sources/COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),

        // The engine: typed Swift, no CF types.
        .target(
            name: "KeychainCore",
            dependencies: ["CSQLite", "COpenSSL"],
            swiftSettings: strictFlags
        ),

        // The Apple-compatible surface.
        .target(
            name: "Security",
            dependencies: ["KeychainCore"],
            swiftSettings: strictFlags
        ),

        // The `security` command: a testable library and a tiny main.
        .target(
            name: "SecurityCLI",
            dependencies: ["Security", "KeychainCore"],
            swiftSettings: strictFlags
        ),
        .executableTarget(
            name: "SecurityTool",
            dependencies: ["SecurityCLI"],
            swiftSettings: strictFlags
        ),

        .testTarget(
            name: "KeychainCoreTests",
            dependencies: ["KeychainCore"],
            swiftSettings: strictFlags
        ),
        .testTarget(
            name: "SecurityTests",
            dependencies: ["Security"],
            swiftSettings: strictFlags
        ),
        .testTarget(
            name: "SecurityCLITests",
            dependencies: ["SecurityCLI"],
            swiftSettings: strictFlags
        ),
    ],
    swiftLanguageModes: [.v6]
)
