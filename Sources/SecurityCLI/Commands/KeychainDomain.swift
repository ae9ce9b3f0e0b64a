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
