/// A value with a `keychaind` wire form: `encode` writes it with `WireWriter`, and `init(from:)`
/// reads exactly what `encode` wrote, throwing `WireError` for anything else.
public protocol WireCodable {
    /// Writes the value.
    ///
    /// - Throws: the engine's error when a value cannot be exported (a key OpenSSL cannot write).
    func encode(to writer: inout WireWriter) throws
    /// Reads a value `encode` wrote.
    ///
    /// - Throws: `WireError` for malformed, truncated or invalid bytes.
    init(from reader: inout WireReader) throws
}

extension WireWriter {
    /// Appends a value in its wire form.
    public mutating func write<T: WireCodable>(_ value: T) throws { try value.encode(to: &self) }
}

extension WireReader {
    /// Reads a value in its wire form.
    public mutating func read<T: WireCodable>(_: T.Type = T.self) throws -> T { try T(from: &self) }
}

/// Runs an engine constructor on decoded fields, turning its refusal into
/// `WireError.Kind.invalidValue` naming `field` (the engine's reason is dropped: it can name
/// values a log must not hold).
func engineValue<T>(_ field: String, _ make: () throws -> T) throws -> T {
    do {
        return try make()
    } catch let error as WireError {
        throw error
    } catch {
        throw WireError(.invalidValue, "\(field) is not valid")
    }
}
