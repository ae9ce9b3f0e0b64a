/// What opening a stored row gives: its value, or why there is none.
///
/// A row that does not open is either locked or damaged, and the two are told apart here, once,
/// by the sealer that opens it, so that callers decide what each means with a `switch`:
/// - `locked`: the keys of the row's protection class are not in memory. The row may be intact
///   and may match; Apple's query stops with `errSecInteractionNotAllowed` on meeting it.
/// - `damaged`: the row is not the version the rollback ledger names, has no known protection
///   class, belongs to the passcode-only class after the passcode was removed, or its sealed
///   bytes fail authentication or decoding. It never opens again; a scan skips it as Apple skips
///   undecryptable items.
enum RowOutcome<Value> {
    /// The row opened and authenticated; here is what was asked of it.
    case opened(Value)
    /// The row's protection class is locked.
    case locked
    /// The row was altered, rolled back, or its keys are gone for good.
    case damaged

    /// The same outcome with `transform` applied to an opened value.
    func map<Other>(_ transform: (Value) throws -> Other) rethrows -> RowOutcome<Other> {
        switch self {
        case .opened(let value): return .opened(try transform(value))
        case .locked: return .locked
        case .damaged: return .damaged
        }
    }

    /// The opened value, for a caller to whom a row that does not open is a failure of the
    /// operation: `errSecInteractionNotAllowed` when locked, `errSecDecode` when damaged.
    func get() throws -> Value {
        switch self {
        case .opened(let value): return value
        case .locked: throw KeychainError.classLocked
        case .damaged: throw KeychainError(.decode, "the item failed authentication: it was damaged or altered")
        }
    }
}

extension RowOutcome<ClassKeys> {
    /// Opens with the keys, when they are held: `open`'s outcome, where anything `open` throws
    /// (a ciphertext or record that fails authentication or decoding) makes the row damaged.
    func flatMap<Other>(_ open: (ClassKeys) throws -> RowOutcome<Other>) -> RowOutcome<Other> {
        switch self {
        case .opened(let keys):
            do { return try open(keys) } catch { return .damaged }
        case .locked: return .locked
        case .damaged: return .damaged
        }
    }
}
