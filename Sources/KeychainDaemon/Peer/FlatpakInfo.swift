import Foundation

/// The part of a Flatpak sandbox's `.flatpak-info` (a GKeyFile) the daemon uses: the `name` key
/// of the `[Application]` group, the sandboxed application's ID.
struct FlatpakInfo: Equatable {
    /// The application ID (`org.example.App`).
    let applicationID: String

    /// The most bytes a `.flatpak-info` may have.
    static let sizeLimit = 65_536

    /// Parses `data`.
    ///
    /// - Returns: nil when there is no `[Application]` group with a valid `name` (a sandbox
    ///   whose application cannot be told: its caller is refused, never taken as unsandboxed).
    init?(parsing data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        var group: Substring?
        var name: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { return nil }
                group = Substring(line.dropFirst().dropLast())
                continue
            }
            guard group == "Application", let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard key == "name" else { continue }
            // A key given twice is ambiguous: refused.
            guard name == nil else { return nil }
            name = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let name, Self.isValidApplicationID(name) else { return nil }
        applicationID = name
    }

    /// Flatpak's rule for application IDs: at most 255 characters, at least three elements
    /// separated by dots, each of ASCII letters, digits, `_` and (but not first) `-`, never
    /// starting with a digit.
    static func isValidApplicationID(_ id: String) -> Bool {
        guard id.utf8.count <= 255 else { return false }
        let elements = id.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.unicodeScalars.first, !element.isEmpty else { return false }
            guard first.isASCII, first.properties.isAlphabetic || first == "_" else { return false }
            return element.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
            }
        }
    }
}
