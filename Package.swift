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
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .executable(name: "security", targets: ["SecurityTool"]),
        .executable(name: "keychaind", targets: ["keychaind"]),
        .executable(name: "keychain-bench", targets: ["KeychainBench"]),
        .executable(name: "bench-hello", targets: ["BenchHello"]),
        // The reliability tests' helper process (crash, concurrency, full-disk and memory probes).
        .executable(name: "keychain-crash-writer", targets: ["KeychainCrashWriter"]),
        // The daemon tests' client program.
        .executable(name: "keychain-test-client", targets: ["KeychainTestClient"]),
    ],
    targets: [
        // SQLite: the types from Debian's libsqlite3-dev, the functions loaded from libsqlite3-0
        // when a process first opens a keychain (not linked, so that a client of keychaind does
        // not bind SQLite at start).
        .target(
            name: "CSQLite",
            path: "Sources/CSQLite"
        ),
        // SQLite linked, for the tests and the benchmark floor that talk to the library itself
        // (a simulated disk, a raw database); the library's sources use CSQLite.
        .systemLibrary(
            name: "CSQLiteLinked",
            path: "Tests/CSQLiteLinked",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // OpenSSL's libcrypto: the types from Debian's libssl-dev, the functions loaded from
        // libssl3 when a process first needs cryptography (not linked, so that a client of
        // keychaind does not bind libcrypto at start).
        .target(
            name: "COpenSSL",
            path: "Sources/COpenSSL"
        ),
        // libcrypto linked, for the benchmark floor that measures OpenSSL itself.
        .systemLibrary(
            name: "COpenSSLLinked",
            path: "Tests/COpenSSLLinked",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // PostgreSQL's client library, for sync (`security sync`): the types from Debian's
        // libpq-dev, the functions loaded from libpq5 when sync first connects (not linked, so
        // that a program that never syncs does not load libpq's twenty libraries).
        .target(
            name: "CLibPQ",
            path: "Sources/CLibPQ"
        ),
        // Sync through PostgreSQL: libpq wrapped once (the only module that imports CLibPQ), the
        // key hierarchy, the server schema and the exchange, over any `KeychainHandle`; and the
        // exchange keychaind runs for a client (`DaemonSync`, through KeychainService's protocol).
        .target(
            name: "KeychainSync",
            dependencies: ["CLibPQ", "KeychainCore", "KeychainCrypto", "KeychainService"],
            swiftSettings: strictFlags
        ),

        // The TPM 2.0 software stack (tpm2-tss): the types from Debian's libtss2-dev, the
        // functions loaded from its runtime libraries when the keychain first talks to a TPM (not
        // linked, so that a program that never uses a TPM does not bind five libraries at start).
        .target(
            name: "CTSS2",
            path: "Sources/CTSS2"
        ),
        // The TPM, wrapped once: the only module that imports CTSS2 (its API has `package` access).
        .target(
            name: "KeychainHardware",
            dependencies: ["CTSS2"],
            swiftSettings: strictFlags
        ),

        // SQLite, wrapped once: the only module that imports CSQLite (its API has `package` access).
        .target(
            name: "KeychainSQLite",
            dependencies: ["CSQLite"],
            swiftSettings: strictFlags
        ),

        // OpenSSL, wrapped once: the only module that imports COpenSSL (its API has `package` access).
        .target(
            name: "KeychainCrypto",
            dependencies: ["COpenSSL"],
            swiftSettings: strictFlags
        ),

        // The engine: typed Swift, no CF types.
        .target(
            name: "KeychainCore",
            dependencies: ["KeychainSQLite", "KeychainCrypto", "KeychainHardware"],
            swiftSettings: strictFlags
        ),

        // Linux calls Swift cannot import directly (variadic, or behind _GNU_SOURCE).
        .target(
            name: "CLinuxSupport",
            path: "Sources/CLinuxSupport"
        ),

        // keychaind's protocol and client: typed requests and results on a Unix socket, and the
        // choice between the daemon and a keychain opened in-process.
        .target(
            name: "KeychainService",
            dependencies: ["KeychainCore", "KeychainCrypto", "CLinuxSupport"],
            swiftSettings: strictFlags
        ),

        // A D-Bus client in Swift (the wire protocol over a Unix socket; no native D-Bus library).
        .target(
            name: "KeychainDBus",
            swiftSettings: strictFlags
        ),

        // keychaind itself: the server, peer credentials and the caller's access groups.
        .target(
            name: "KeychainDaemon",
            dependencies: ["KeychainService", "KeychainCore", "KeychainCrypto", "CLinuxSupport", "KeychainDBus", "KeychainAuthentication", "KeychainSync"],
            swiftSettings: strictFlags
        ),
        .executableTarget(
            name: "keychaind",
            dependencies: ["KeychainDaemon"],
            swiftSettings: strictFlags
        ),

        // The Apple-compatible surface.
        .target(
            name: "Security",
            dependencies: ["KeychainCore", "KeychainService", "KeychainAuthentication"],
            swiftSettings: strictFlags
        ),

        // Asking the user: the pinentry client (Assuan) and the passcode check, for
        // LocalAuthentication and the daemon (its API has `package` access).
        .target(
            name: "KeychainAuthentication",
            dependencies: ["CLinuxSupport", "KeychainCore", "KeychainCrypto", "KeychainDBus"],
            swiftSettings: strictFlags
        ),

        // The Apple-compatible `import LocalAuthentication`.
        .target(
            name: "LocalAuthentication",
            dependencies: ["Security", "KeychainAuthentication", "KeychainCore", "KeychainCrypto", "KeychainService"],
            swiftSettings: strictFlags
        ),

        // The `security` command: a testable library and a tiny main.
        .target(
            name: "SecurityCLI",
            dependencies: ["Security", "KeychainCore", "KeychainService", "KeychainAuthentication", "KeychainSync"],
            swiftSettings: strictFlags
        ),
        .executableTarget(
            name: "SecurityTool",
            dependencies: ["SecurityCLI", "KeychainCore"],
            swiftSettings: strictFlags
        ),

        // The benchmark (`swift run -c release keychain-bench`) and its process floor.
        .executableTarget(
            name: "KeychainBench",
            dependencies: ["Security", "KeychainCore", "KeychainService", "KeychainSync", "CSQLiteLinked", "COpenSSLLinked", "keychaind", "SecurityTool"],
            path: "Benchmarks/KeychainBench"
        ),
        .executableTarget(
            name: "BenchHello",
            path: "Benchmarks/BenchHello"
        ),

        // A simulated disk for SQLite that loses unsynced writes (the power-loss test's helper only).
        .target(
            name: "PowerLossVFS",
            dependencies: ["CSQLiteLinked"],
            path: "Tests/PowerLossVFS"
        ),

        // The process the reliability tests start, kill and inspect (docs/reliability.md).
        .executableTarget(
            name: "KeychainCrashWriter",
            dependencies: ["Security", "CSQLiteLinked", "PowerLossVFS"],
            path: "Tests/KeychainCrashWriter",
            swiftSettings: strictFlags
        ),

        .testTarget(
            name: "KeychainCoreTests",
            dependencies: ["KeychainCore", "KeychainSQLite", "KeychainCrypto"],
            swiftSettings: strictFlags
        ),
        // What several test targets start beside themselves: a private D-Bus, the scripted fprintd.
        .target(
            name: "KeychainTestSupport",
            dependencies: ["KeychainDBus", "KeychainAuthentication", "KeychainHardware"],
            path: "Tests/KeychainTestSupport",
            swiftSettings: strictFlags
        ),
        // A program using `import Security` as an app does, for the daemon's tests.
        .executableTarget(
            name: "KeychainTestClient",
            dependencies: ["Security", "LocalAuthentication"],
            path: "Tests/KeychainTestClient",
            swiftSettings: strictFlags
        ),

        .testTarget(
            name: "KeychainServiceTests",
            dependencies: [
                "KeychainService", "KeychainDaemon", "KeychainCore", "keychaind", "SecurityTool", "KeychainTestClient", "KeychainDBus",
                "KeychainTestSupport",
            ],
            swiftSettings: strictFlags
        ),
        // Sync against a real PostgreSQL the tests start (initdb/pg_ctl), through the `security` binary.
        .testTarget(
            name: "KeychainSyncTests",
            dependencies: ["KeychainSync", "KeychainCore", "KeychainSQLite", "KeychainService", "SecurityTool", "KeychainTestClient"],
            swiftSettings: strictFlags
        ),
        .testTarget(
            name: "KeychainDBusTests",
            dependencies: ["KeychainDBus"],
            swiftSettings: strictFlags
        ),
        .testTarget(
            name: "SecurityTests",
            dependencies: ["Security", "LocalAuthentication", "KeychainCore", "KeychainService", "KeychainAuthentication", "KeychainTestSupport"],
            swiftSettings: strictFlags
        ),
        .testTarget(
            name: "LocalAuthenticationTests",
            dependencies: [
                "LocalAuthentication", "KeychainAuthentication", "KeychainCore", "KeychainCrypto", "KeychainDBus",
                "KeychainService", "SecurityTool", "keychaind", "KeychainTestClient", "KeychainTestSupport",
            ],
            swiftSettings: strictFlags
        ),
        .testTarget(
            name: "SecurityCLITests",
            dependencies: ["SecurityCLI", "SecurityTool", "KeychainService"],
            swiftSettings: strictFlags
        ),
        // Crash safety, concurrency, full disk, fuzz regressions and hygiene (docs/reliability.md).
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "KeychainCore", "KeychainSQLite", "KeychainCrypto", "Security", "SecurityCLI", "SecurityTool",
                "KeychainService", "KeychainCrashWriter",
                "PowerLossVFS", "KeychainDBus",
            ],
            swiftSettings: strictFlags
        ),
    ],
    swiftLanguageModes: [.v6]
)
