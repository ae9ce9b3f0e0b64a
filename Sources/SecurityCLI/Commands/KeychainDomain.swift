/// The preference domains of `list-keychains -d` and `default-keychain -d`. Only the user's
/// domain holds keychains here; the others (macOS's system, common and dynamic domains) are
/// empty and cannot be set.
enum KeychainDomain: String, CaseIterable {
    case user, system, common, dynamic

    /// The domain a `-d` value names (any prefix, as macOS's `parse_domain` accepts).
    ///
    /// - Throws: bad usage with `Invalid domain: <name>` for anything else.
    static func parse(_ name: String) throws -> KeychainDomain {
        guard !name.isEmpty, let domain = allCases.first(where: { $0.rawValue.hasPrefix(name) }) else {
            throw ToolError.usage(reason: "Invalid domain: \(name)")
        }
        return domain
    }

    /// The failure of setting anything in a domain other than the user's.
    func refuseSetting(_ api: String) -> ToolError {
        .failed(result: 1, message: "security: \(api) \(rawValue): \(ToolError.text(for: -4))\n")
    }
}

/// The options `list-keychains` and `default-keychain` share: `[-d domain] [-s [keychain...]]`.
struct KeychainDomainOptions {
    /// The domain `-d` names (the user's by default).
    var domain = KeychainDomain.user
    /// Whether `-s` asks to set rather than print.
    var set = false
    /// The keychains named after the options.
    var operands: [String] = []

    /// The option syntax of both commands.
    static let specification = OptionParser("d:hs")

    /// Reads the options of `invocation` (scanned with `specification`).
    ///
    /// - Throws: bad usage for an unknown option or domain.
    init(_ invocation: Invocation) throws {
        for element in invocation.scan.elements {
            switch element {
            case .option("d", let value): domain = try KeychainDomain.parse(value ?? "")
            case .option("s", _): set = true
            default: throw invocation.usageError(for: element)
            }
        }
        operands = invocation.scan.operands
    }
}
