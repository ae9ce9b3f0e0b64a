import Foundation

/// The fuzz targets (docs/reliability.md §3). Each takes arbitrary bytes, builds inputs from
/// them, feeds the code under test and checks properties that must hold for every input; it
/// throws `FuzzFailure` when one does not (a crash is a failure too).
///
/// The same code runs in two places: `scripts/fuzz` compiles these files with libFuzzer and
/// AddressSanitizer (one binary, the target chosen by `KEYCHAIN_FUZZ_TARGET`), and
/// `FuzzRegressionTests` replays every file under `Tests/FuzzInputs/<target>/` in `swift test`.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// (a) SecItem dictionaries: random keys, value types and nesting, through the CF bridge,
    /// the request parser and a keychain search.
    case secItemDictionary = "secitem-dictionary"
    /// (c) `security` command lines: the option scanner, the password options, redaction,
    /// interactive-mode splitting and the commands that touch no keychain.
    case commandLine = "command-line"
    /// (d) What is read from disk: the record codec, stored access control, persistent
    /// references and sealed blobs, fed corrupted bytes.
    case recordDecoder = "record-decoder"
    /// (b) Certificates (DER, PEM), PKCS#12 archives and keys (external representations, PEM
    /// and DER key files).
    case importers = "importers"
    /// (e) `keychaind`'s frames and messages: byte streams cut as a socket delivers them,
    /// request and response payloads.
    case serviceProtocol = "service-protocol"
    /// (f) What `keychaind` runs: request payloads decoded, checked and run against a keychain
    /// holding a few items.
    case serviceRequests = "service-requests"
    /// (g) The D-Bus client's decoder: message streams, messages and values of any signature, as
    /// a hostile or broken bus could send them.
    case dbusMessage = "dbus-message"

    /// Runs one input.
    func run(_ bytes: UnsafeRawBufferPointer) throws {
        var input = FuzzInput(bytes)
        switch self {
        case .secItemDictionary: try SecItemDictionaryFuzzer.run(&input)
        case .commandLine: try CommandLineFuzzer.run(&input)
        case .recordDecoder: try RecordDecoderFuzzer.run(&input)
        case .importers: try ImporterFuzzer.run(&input)
        case .serviceProtocol: try ServiceProtocolFuzzer.run(&input)
        case .serviceRequests: try ServiceRequestFuzzer.run(&input)
        case .dbusMessage: try DBusMessageFuzzer.run(&input)
        }
    }

    /// Runs one input given as `Data`.
    func run(_ data: Data) throws {
        try data.withUnsafeBytes { try run($0) }
    }
}

/// A property that did not hold.
struct FuzzFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Takes values from the fuzzer's bytes; once they run out, every value is zero or empty.
struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isExhausted: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A number in `0..<bound` (bound ≤ 65536).
    mutating func below(_ bound: Int) -> Int {
        bound <= 256 ? Int(byte()) % bound : (Int(byte()) << 8 | Int(byte())) % bound
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func int64() -> Int64 {
        (0..<8).reduce(Int64(0)) { value, _ in value << 8 | Int64(byte()) }
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in byte() }
    }

    /// Up to `maximum` bytes, the length taken from the input.
    mutating func blob(maximum: Int = 64) -> [UInt8] {
        bytes(below(maximum + 1))
    }

    /// One of `choices`.
    mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }

    /// The rest of the input.
    mutating func remainder() -> [UInt8] {
        guard offset < bytes.count else { return [] }
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// Text: usually one of `vocabulary`, sometimes arbitrary bytes (repaired to UTF-8).
    mutating func text(_ vocabulary: [String], maximum: Int = 24) -> String {
        if vocabulary.isEmpty || below(4) == 0 { return String(decoding: blob(maximum: maximum), as: UTF8.self) }
        return pick(vocabulary)
    }
}
